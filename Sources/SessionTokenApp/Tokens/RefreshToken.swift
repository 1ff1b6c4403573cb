import Crypto
import Foundation

/// An opaque refresh token: `<scope>.<secret>`. The scope (base64url of `projectId` or
/// `projectId/tenantId`) lets the service find the tenant schema that holds the token; the secret is
/// 32 bytes from the system CSPRNG. Only SHA-256 of the whole token is stored.
struct RefreshToken: Sendable, Hashable {
    let value: String

    static func make(projectId: String, tenantId: String?) -> RefreshToken {
        let scope = tenantId.map { "\(projectId)/\($0)" } ?? projectId
        var generator = SystemRandomNumberGenerator()
        let secret = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return RefreshToken(value: base64URL(Data(scope.utf8)) + "." + base64URL(secret))
    }

    var hash: Data { Data(SHA256.hash(data: Data(value.utf8))) }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
