import AuthVocabulary
import Contracts
import DataServiceTesting
import Foundation
import JSONRPC
import ServiceKit
import ServiceTesting
import Testing
import _CryptoExtras

extension DataServiceStatements {
    /// What session-token signs and checks besides sessions, through its method table, for the project
    /// and one of its tenants: session cookies (an ID token's claims under the cookie issuer, never
    /// taken for an ID token), blocking functions' event tokens (signed under the published keys with
    /// session-token's own registered claims) and their audit entries (each in its own scope), and
    /// custom tokens (signed by the project's service account, for the tenant they name).
    @Suite("Session-token signing (session-token, in-process, PostgreSQL, two scopes)")
    struct SessionTokenSigningTests {
        static let project = "token-signing"

        static func idToken(_ sessions: ServiceUnderTest, scope: String?, localId: String = "alice") async throws -> String {
            try await sessions.call(
                IssueSession.self,
                .init(
                    projectId: project, tenantId: scope, localId: localId, signInProvider: .password,
                    authTime: .now, user: SessionUser(email: "\(localId)@example.com")
                )
            ).idToken
        }

        /// A JWT's header and claims, unverified.
        static func parts(_ token: String) throws -> (header: [String: JSONValue], claims: [String: JSONValue]) {
            let segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            try #require(segments.count == 3)
            let decode = { (segment: String) throws -> [String: JSONValue] in
                try JSONDecoder().decode([String: JSONValue].self, from: Data(try #require(Base64URL.decode(segment))))
            }
            return (try decode(segments[0]), try decode(segments[1]))
        }

        /// Whether `token`'s RS256 signature verifies under one of the keys session-token publishes.
        static func signedByPublishedKey(_ sessions: ServiceUnderTest, _ token: String) async throws -> Bool {
            let segments = token.split(separator: ".").map(String.init)
            guard case .string(let kid)? = try parts(token).header["kid"] else { return false }
            let keys = try await sessions.call(PublishSigningKeys.self, .init()).keys
            guard let key = keys.first(where: { $0.kid == kid }), let n = Base64URL.decode(key.modulus),
                let e = Base64URL.decode(key.exponent),
                let signature = Base64URL.decode(segments[2])
            else { return false }
            return try _RSA.Signing.PublicKey(n: Data(n), e: Data(e)).isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: Data((segments[0] + "." + segments[1]).utf8),
                padding: .insecurePKCS1v1_5)
        }

        @Test("a session cookie carries its ID token's user and tenant under the cookie issuer, and never passes for an ID token")
        func sessionCookie() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let sessions = services[.sessionToken]
                for scope in [nil, tenantId] {
                    let idToken = try await Self.idToken(sessions, scope: scope)
                    let cookie = try await sessions.call(IssueSessionCookie.self, .init(idToken: idToken, validDuration: 3600))
                        .sessionCookie
                    #expect(try await Self.signedByPublishedKey(sessions, cookie))
                    let (claims, original) = (try Self.parts(cookie).claims, try Self.parts(idToken).claims)
                    #expect(claims["iss"] == .string("https://session.firebase.google.com/\(Self.project)"))
                    #expect(claims["aud"] == .string(Self.project) && claims["sub"] == .string("alice"))
                    #expect(claims["email"] == original["email"] && claims["auth_time"] == original["auth_time"])
                    guard case .int(let issuedAt)? = claims["iat"], case .int(let expiresAt)? = claims["exp"] else {
                        Issue.record("no iat or exp")
                        return
                    }
                    #expect(expiresAt - issuedAt == 3600)
                    guard case .object(let firebase)? = claims["firebase"] else {
                        Issue.record("no firebase claims")
                        return
                    }
                    #expect(firebase["tenant"] == scope.map(JSONValue.string))
                    // A cookie is no ID token, and makes no further cookie.
                    #expect(
                        try await sessions.refusal { _ = try await sessions.call(VerifyIDToken.self, .init(idToken: cookie)) }
                            == "INVALID_ID_TOKEN")
                    #expect(
                        try await sessions.refusal {
                            _ = try await sessions.call(IssueSessionCookie.self, .init(idToken: cookie, validDuration: 3600))
                        } == "INVALID_ID_TOKEN")
                    // A signature over other claims: the same header and signature, the payload changed.
                    let segments = idToken.split(separator: ".").map(String.init)
                    var forged = try Self.parts(idToken).claims
                    forged["sub"] = .string("mallory")
                    let forgedToken = [segments[0], Base64URL.encode(try JSONEncoder().encode(forged)), segments[2]].joined(separator: ".")
                    #expect(
                        try await sessions.refusal {
                            _ = try await sessions.call(IssueSessionCookie.self, .init(idToken: forgedToken, validDuration: 3600))
                        } == "INVALID_ID_TOKEN")
                    #expect(
                        try await sessions.refusal {
                            _ = try await sessions.call(
                                IssueSessionCookie.self, .init(idToken: idToken, validDuration: 3600), as: .challengeIssuer)
                        } == "Caller not allowed")
                }
            }
        }

        @Test("a blocking function's event token is signed under the published keys with session-token's iss, aud, sub and five minutes")
        func blockingEventToken() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, _ in
                let sessions = services[.sessionToken]
                let jwt = try await sessions.call(
                    SignBlockingEvent.self,
                    .init(
                        projectId: Self.project, audience: "https://functions.example.com/beforeCreate", subject: "alice",
                        claims: [
                            "event_type": .string("providers/cloud.auth/eventTypes/user.beforeCreate"),
                            "iss": .string("https://evil.example"),
                            "exp": .int(4_102_444_800), "sub": .string("mallory"),
                        ]
                    )
                ).jwt
                #expect(try await Self.signedByPublishedKey(sessions, jwt))
                let claims = try Self.parts(jwt).claims
                #expect(claims["iss"] == .string("https://securetoken.google.com/\(Self.project)"))
                #expect(claims["aud"] == .string("https://functions.example.com/beforeCreate") && claims["sub"] == .string("alice"))
                #expect(claims["event_type"] == .string("providers/cloud.auth/eventTypes/user.beforeCreate"))
                guard case .int(let issuedAt)? = claims["iat"], case .int(let expiresAt)? = claims["exp"] else {
                    Issue.record("no iat or exp")
                    return
                }
                #expect(expiresAt - issuedAt == 300)
            }
        }

        @Test("a blocking function's call is audited in its own scope only")
        func blockingEventRecorded() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let sessions = services[.sessionToken]
                let list = { (scope: String?) in
                    try await sessions.call(
                        ListSecurityEvents.self,
                        .init(projectId: Self.project, tenantId: scope, types: ["blockingFunction.called"], limit: 10)
                    ).events
                }
                for (scope, outcome) in [(nil, "allowed"), (tenantId, "blocked")] as [(String?, String)] {
                    _ = try await sessions.call(
                        RecordBlockingEvent.self,
                        .init(
                            projectId: Self.project, tenantId: scope, localId: "alice", event: "beforeSignIn",
                            function: "https://functions.example.com/beforeSignIn", outcome: outcome, durationMs: 42
                        )
                    )
                    let events = try await list(scope)
                    #expect(events.count == 1)
                    #expect(events.first?.localId == "alice" && events.first?.source == "session-token")
                    #expect(
                        events.first?.details == [
                            "event": "beforeSignIn", "function": "https://functions.example.com/beforeSignIn", "outcome": outcome,
                            "durationMs": "42",
                        ])
                }
                #expect(
                    try await sessions.refusal {
                        _ = try await sessions.call(
                            RecordBlockingEvent.self,
                            .init(
                                projectId: Self.project, tenantId: "unknown", localId: nil, event: "beforeCreate",
                                function: "https://f.example",
                                outcome: "failed", durationMs: 1
                            )
                        )
                    } == "TENANT_NOT_FOUND")
            }
        }
    }

}
