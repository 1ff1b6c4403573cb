import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// Serves session-token's published keys at the paths verifiers use (contract decision 1):
/// `/.well-known/jwks.json` and Google's JWK-set path as a JWK set, Google's x509 path as a
/// kid → PEM certificate map. Fetched over RPC and kept for a few seconds.
actor SigningKeySet {
    static let jwksPaths: Set<String> = [
        "/.well-known/jwks.json",
        "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
        // Session cookies are signed with the same keys (`createSessionCookie`).
        "/v1/sessionCookiePublicKeys", "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys",
    ]
    static let x509Paths: Set<String> = ["/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"]

    let client: PeerClient<SessionTokenAPI>
    private var cached: (keys: PublishSigningKeys.Result, fetchedAt: ContinuousClock.Instant)?
    static let refreshAfter: Duration = .seconds(5)

    init(client: PeerClient<SessionTokenAPI>) {
        self.client = client
    }

    static func serves(_ path: String) -> Bool { jwksPaths.contains(path) || x509Paths.contains(path) }

    /// The document for `path` and how long it may be cached.
    func document(for path: String) async throws -> (JSONValue, maxAge: Int) {
        let published = try await current()
        if Self.x509Paths.contains(path) {
            return (
                .object(Dictionary(uniqueKeysWithValues: published.keys.map { ($0.kid, JSONValue.string($0.certificatePem)) })),
                published.maxAgeSeconds
            )
        }
        let keys: [JSONValue] = published.keys.map { key in
            [
                "kty": "RSA", "alg": .string(key.algorithm), "use": "sig", "kid": .string(key.kid), "n": .string(key.modulus),
                "e": .string(key.exponent),
            ]
        }
        return (["keys": .array(keys)], published.maxAgeSeconds)
    }

    private func current() async throws -> PublishSigningKeys.Result {
        if let cached, ContinuousClock.now - cached.fetchedAt < Self.refreshAfter { return cached.keys }
        let keys = try await client.call(PublishSigningKeys.self, RPCEmpty())
        cached = (keys, ContinuousClock.now)
        return keys
    }
}
