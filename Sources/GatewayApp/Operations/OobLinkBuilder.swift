import Foundation

/// The out-of-band link a user follows: `<base>?mode=verifyEmail&lang=en&oobCode=…&apiKey=…`
/// (contract §2.5), where `<base>` is `oob.linkBase` (by default this gateway's `/emulator/action`).
struct OobLinkBuilder: Sendable {
    let base: String
    /// Used when the request carried no API key (an admin generating a link).
    let fallbackAPIKey: String

    /// RFC 3986 unreserved characters: everything else in a value is percent-encoded, so a
    /// continue URL with its own `&` and `=` stays one parameter.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    func verifyEmailLink(oobCode: String, apiKey: String?, tenantId: String?, continueUrl: String?) -> String {
        var parameters = [("mode", "verifyEmail"), ("lang", "en"), ("oobCode", oobCode), ("apiKey", apiKey ?? fallbackAPIKey)]
        if let tenantId { parameters.append(("tenantId", tenantId)) }
        if let continueUrl { parameters.append(("continueUrl", continueUrl)) }
        let query = parameters.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")"
        }
        return base + "?" + query.joined(separator: "&")
    }

    /// An absolute URI with a scheme and a host (`INVALID_CONTINUE_URI` otherwise).
    static func isAbsolute(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme, let host = url.host else {
            return false
        }
        return !scheme.isEmpty && !host.isEmpty
    }
}
