import Contracts
import Crypto
import Foundation

/// Refresh tokens and MFA pending credentials are both scoped opaque tokens.
typealias RefreshToken = ScopedToken
typealias PendingCredential = ScopedToken

/// An opaque token: `<scope>.<secret>`. The scope (base64url of `projectId` or
/// `projectId/tenantId`) lets the service find the tenant schema that holds the token; the secret is
/// sealed facts and random bytes (`SealedPendingCredential`, `SealedRefreshToken`; earlier versions
/// made 32 random bytes, which still look up). Only SHA-256 of the whole token is stored.
struct ScopedToken: Sendable, Hashable {
    let value: String

    init(value: String) {
        self.value = value
    }

    var hash: Data { Data(SHA256.hash(data: Data(value.utf8))) }

    /// The project and tenant a presented token names, or `nil` when it is not of our form. The scope
    /// only routes the look-up; the token is valid only if its hash is stored in that scope's schema.
    var scope: (projectId: String, tenantId: String?)? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard value.utf8.count <= 512, parts.count == 2, parts[1].utf8.count >= 43,
            let decoded = Base64URL.decode(String(parts[0])), let text = String(data: decoded, encoding: .utf8)
        else { return nil }
        let pieces = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch pieces.count {
        case 1: return (pieces[0], nil)
        case 2: return (pieces[0], pieces[1])
        default: return nil
        }
    }
}
