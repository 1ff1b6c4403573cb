import AsyncHTTPClient
import Contracts
import Foundation
import JSONRPC
import NIOCore
import NIOHTTP1
import ServiceKit
import ServiceTransport
import Testing
import X509
import _CryptoExtras

@Suite("Signing keys: sealed at rest, rotated, published by the gateway", .serialized)
struct SigningKeyTests {
    static let services: [ServiceName] = [.factorRegistry, .challengeIssuer, .sessionToken, .gateway]
    static let jwksPaths = [
        "/.well-known/jwks.json",
        "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
    ]
    static let x509Path = "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"

    static func get(_ stack: TestStack, _ url: String, bearer: String? = nil, method: HTTPMethod = .GET) async throws
        -> (status: Int, body: JSONValue?, cacheControl: String?)
    {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let bearer { request.headers.add(name: "authorization", value: "Bearer \(bearer)") }
        let response = try await stack.http.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), try? JSONCoding.parse(Array(buffer: bytes)), response.headers.first(name: "cache-control"))
    }

    static func kids(_ jwks: JSONValue?) -> [String] {
        guard case .array(let keys)? = jwks?["keys"] else { return [] }
        return keys.compactMap { $0["kid"]?.stringValue }
    }

    @Test("the gateway publishes one RS256 key as a JWK set at both paths and as a certificate with the same public key")
    func publication() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.services)
            var documents: [JSONValue] = []
            for path in Self.jwksPaths {
                let answer = try await Self.get(stack, stack.publicURL + path)
                #expect(answer.status == 200)
                #expect(answer.cacheControl == "public, max-age=60")
                documents.append(try #require(answer.body))
            }
            #expect(documents[0] == documents[1])
            guard case .array(let keys)? = documents[0]["keys"], let key = keys.first, keys.count == 1 else {
                Issue.record("expected exactly one key: \(documents[0])")
                return
            }
            #expect(key["kty"] == "RSA")
            #expect(key["alg"] == "RS256")
            #expect(key["use"] == "sig")
            #expect(key["e"] == "AQAB")
            let kid = try #require(key["kid"]?.stringValue)

            let certificates = try #require(try await Self.get(stack, stack.publicURL + Self.x509Path).body)
            let pem = try #require(certificates[kid]?.stringValue)
            let certificate = try Certificate(pemEncoded: pem)
            let publicKey = try #require(_RSA.Signing.PublicKey(certificate.publicKey))
            let modulus = try publicKey.getKeyPrimitives().modulus.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(key["n"]?.stringValue == modulus)
        }
    }

    @Test("rotation publishes a new key at once, keeps signing with the old until the lead passes, and survives a restart")
    func rotation() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.services)
            let ops = stack.process(.sessionToken).opsURL
            #expect(try await Self.get(stack, ops + "/admin/signing-keys/rotate", method: .POST).status == 401)
            let rotated = try await Self.get(stack, ops + "/admin/signing-keys/rotate", bearer: "owner", method: .POST)
            #expect(rotated.status == 200)
            let newKid = try #require(rotated.body?["rotated"]?.stringValue)
            guard case .array(let listed)? = rotated.body?["keys"] else {
                Issue.record("no key list")
                return
            }
            #expect(listed.count == 2)
            #expect(listed.first { $0["kid"]?.stringValue == newKid }?["signing"] == .bool(false))
            #expect(listed.filter { $0["signing"] == .bool(true) }.count == 1)

            let published = try await stack.client(to: .sessionToken, as: "gateway").call(PublishSigningKeys.self, RPCEmpty())
            #expect(published.keys.map(\.kid).contains(newKid))
            #expect(published.keys.count == 2)

            stack.process(.sessionToken).stop()
            try await stack.start([.sessionToken])
            let again = try await stack.client(to: .sessionToken, as: "gateway").call(PublishSigningKeys.self, RPCEmpty())
            #expect(Set(again.keys.map(\.kid)) == Set(published.keys.map(\.kid)))
        }
    }

    @Test("keys are sealed with the master key: another master key cannot open them, and the service refuses to start")
    func sealedAtRest() async throws {
        try await TestStack.with { stack in
            try await stack.start([.factorRegistry, .challengeIssuer, .sessionToken])
            stack.process(.sessionToken).stop()
            let other = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            var environment = stack.process(.sessionToken).environment
            environment["SECRETS_MASTER_KEY"] = other
            let impostor = ServiceProcess(
                service: .sessionToken, rpcPort: stack.process(.sessionToken).rpcPort, opsPort: stack.process(.sessionToken).opsPort,
                environment: environment, logDirectory: stack.workDirectory
            )
            try impostor.start()
            await #expect(throws: (any Error).self) { try await impostor.waitForReadiness(stack.http, timeout: 10) }
            impostor.stop()
            #expect(impostor.logTail(100).contains("cannot be opened with this master key"))
            #expect(!impostor.logTail(100).contains(other))
        }
    }
}
