import Contracts
import Foundation
import JSONRPC

/// Where a request is headed before its credential is checked: the contract checks
/// `PROJECT_DISABLED` and whether MFA is enabled *before* the ID token or pending credential, so
/// the tenant is read from the body, or else from the unverified token. Only routing uses this;
/// nothing is trusted until session-token has verified the token.
enum RoutingHint {
    /// The `firebase.tenant` claim of a JWT, unverified.
    static func tenant(ofIDToken token: String?) -> String? {
        guard let token, token.utf8.count <= 8192 else { return nil }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = Base64URL.decode(segments[1]),
            case .object(let claims)? = try? JSONCoding.parse(Array(payload))
        else { return nil }
        return claims["firebase"]?["tenant"]?.stringValue
    }

    /// The tenant named in a scoped opaque token's first segment (`<scope>.<secret>`).
    static func tenant(ofScopedToken token: String?) -> String? {
        guard let token, token.utf8.count <= 512, let scope = token.split(separator: ".").first,
            let data = Base64URL.decode(scope), let text = String(data: data, encoding: .utf8)
        else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 ? String(parts[1]) : nil
    }
}
