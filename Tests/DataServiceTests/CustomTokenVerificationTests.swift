import Contracts
import DataServiceTesting
import Foundation
import JSONRPC
import ServiceKit
import ServiceTesting
import Testing
import _CryptoExtras

extension DataServiceStatements {
    /// session-token's check of custom tokens (`customToken.verify`, contract §2.7) through its method
    /// table, with service-account keys of this project and of another, for the project and one of its
    /// tenants: a token opens its uid only where its signer meant it to (decision 17), and each
    /// refusal carries its exact Identity Toolkit error.
    @Suite("Custom token verification (session-token, in-process, two scopes)")
    struct CustomTokenVerificationTests {
        static let project = "custom-tokens"
        static let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

        struct Signer: Sendable {
            let email: String
            let key: _RSA.Signing.PrivateKey

            /// A custom token as the Admin SDKs make one, with `claims` over the usual ones.
            func token(_ claims: [String: JSONValue], lifetime: Int64 = 3600, issuedAgo: Int64 = 0) throws -> String {
                let now = Int64(Date().timeIntervalSince1970) - issuedAgo
                var payload: [String: JSONValue] = [
                    "iss": .string(email), "sub": .string(email), "aud": .string(CustomTokenVerificationTests.audience), "iat": .int(now),
                    "exp": .int(now + lifetime), "uid": .string("alice"),
                ]
                payload.merge(claims) { _, new in new }
                let input =
                    Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8)) + "."
                    + Base64URL.encode(try JSONEncoder().encode(payload))
                let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
                return input + "." + Base64URL.encode(signature.rawRepresentation)
            }
        }

        /// session-token trusting the public halves of `ours` (this project's) and `theirs` (another project's).
        static func withSessions(
            _ body: @Sendable (ServiceUnderTest, _ tenantId: String, _ ours: Signer, _ theirs: Signer) async throws -> Void
        ) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custom-tokens-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var signers: [Signer] = []
            var files: [String] = []
            for project in [project, "another-project"] {
                let signer = Signer(email: "admin@\(project).iam.gserviceaccount.com", key: try _RSA.Signing.PrivateKey(keySize: .bits2048))
                let file = directory.appendingPathComponent("\(project).json")
                let json: [String: String] = [
                    "type": "service_account", "project_id": project, "client_email": signer.email,
                    "public_key": signer.key.publicKey.pemRepresentation,
                ]
                try JSONEncoder().encode(json).write(to: file)
                signers.append(signer)
                files.append(file.path)
            }
            let (ours, theirs) = (signers[0], signers[1])
            try await TwoScopeServices.withRunning(
                project: project, configuration: ["customTokens.serviceAccountFiles": files.joined(separator: ",")]
            ) { services, tenantId in
                try await body(services[.sessionToken], tenantId, ours, theirs)
            }
        }

        static func verify(_ sessions: ServiceUnderTest, _ token: String, tenantId: String?) async throws -> VerifyCustomToken.Result {
            try await sessions.call(VerifyCustomToken.self, .init(projectId: project, tenantId: tenantId, token: token))
        }

        static func refusal(_ sessions: ServiceUnderTest, _ token: String, tenantId: String? = nil) async throws -> String? {
            try await sessions.refusal { _ = try await verify(sessions, token, tenantId: tenantId) }
        }

        @Test("a token opens its uid, with its claims, in the tenant it names and nowhere else")
        func opensItsScope() async throws {
            try await Self.withSessions { sessions, tenantId, ours, _ in
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    var claims: [String: JSONValue] = ["claims": .object(["role": .string("admin")])]
                    if let scope { claims["tenant_id"] = .string(scope) }
                    let token = try ours.token(claims)
                    let verified = try await Self.verify(sessions, token, tenantId: scope)
                    #expect(verified.localId == "alice" && verified.tenantId == scope && verified.claims == ["role": .string("admin")])
                    if let other {
                        #expect(try await Self.refusal(sessions, token, tenantId: other) == "TENANT_ID_MISMATCH")
                    } else {
                        // A request that names no tenant takes the token's.
                        #expect(try await Self.verify(sessions, token, tenantId: nil).tenantId == scope)
                        #expect(try await Self.refusal(sessions, token, tenantId: "another-tenant") == "TENANT_ID_MISMATCH")
                    }
                }
            }
        }

        @Test("each refusal in the contract's order: form, audience, signature, lifetime, signer's project, user id, claims")
        func refusals() async throws {
            try await Self.withSessions { sessions, tenantId, ours, theirs in
                for scope in [nil, tenantId] {
                    let scoped: [String: JSONValue] = scope.map { ["tenant_id": .string($0)] } ?? [:]
                    let refused = { (token: String) in try await Self.refusal(sessions, token, tenantId: scope) }
                    #expect(try await refused("not a token") == "INVALID_CUSTOM_TOKEN : Invalid assertion format")
                    #expect(
                        try await refused(try ours.token(scoped.merging(["aud": .string("https://example.com")]) { _, new in new }))
                            == "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): https://example.com Note: Firebase ID Tokens / third-party tokens "
                            + "cannot be used with signInWithCustomToken.))")
                    let valid = try ours.token(scoped)
                    let forged =
                        valid.split(separator: ".").prefix(2).joined(separator: ".") + "."
                        + Base64URL.encode(Array(repeating: 7, count: 256))
                    let unverifiable = "INVALID_CUSTOM_TOKEN : ((The custom token's signature could not be verified.))"
                    #expect(try await refused(forged) == unverifiable)
                    // Signed by a key, but claiming to be another service account.
                    #expect(
                        try await refused(
                            try theirs.token(scoped.merging(["iss": .string(ours.email), "sub": .string(ours.email)]) { _, new in new }))
                            == unverifiable)
                    let stale = "INVALID_CUSTOM_TOKEN : ((The custom token has expired or is not yet valid.))"
                    #expect(try await refused(try ours.token(scoped, lifetime: 3600, issuedAgo: 3601)) == stale)
                    #expect(try await refused(try ours.token(scoped, lifetime: 3601)) == stale)
                    #expect(
                        try await refused(try theirs.token(scoped))
                            == "CREDENTIAL_MISMATCH : The custom token corresponds to a different audience.")
                    #expect(
                        try await refused(try ours.token(scoped.merging(["uid": .string("")]) { _, new in new })) == "MISSING_IDENTIFIER")
                    let forbidden = scoped.merging(["claims": .object(["firebase": .object([:]), "role": .string("admin")])]) { _, new in
                        new
                    }
                    #expect(try await refused(try ours.token(forbidden)) == "FORBIDDEN_CLAIM : firebase")
                    #expect(
                        try await refused(try ours.token(scoped.merging(["claims": .string("admin")]) { _, new in new }))
                            == "INVALID_CLAIMS")
                    #expect(try await refused(valid) == nil)
                }
                // Development mode also takes the emulator's unsigned tokens.
                let unsigned = try await Self.verify(sessions, #"{"uid":"bob","tenant_id":"\#(tenantId)"}"#, tenantId: nil)
                #expect(unsigned.localId == "bob" && unsigned.tenantId == tenantId)
            }
        }
    }

}
