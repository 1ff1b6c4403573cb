import Foundation

/// The out-of-band link a user follows: `<base>?mode=<mode>&lang=en&oobCode=…&apiKey=…`
/// (contract §2.5), where `<base>` is `oob.linkBase` (by default this gateway's `/emulator/action`)
/// and the mode is the SDKs' name for the request type (`verifyEmail`, `resetPassword`, `signIn`, …).
struct OOBLinkBuilder: Sendable {
    let base: String
    /// Used when the request carried no API key (an admin generating a link).
    let fallbackAPIKey: String

    /// RFC 3986 unreserved characters: everything else in a value is percent-encoded, so a
    /// continue URL with its own `&` and `=` stays one parameter.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// The SDKs' action-code modes (`ActionCodeOperation` in the JS SDK, `mode` in the links).
    static let modes: [String: String] = [
        "VERIFY_EMAIL": "verifyEmail", "PASSWORD_RESET": "resetPassword", "EMAIL_SIGNIN": "signIn",
        "VERIFY_AND_CHANGE_EMAIL": "verifyAndChangeEmail", "RECOVER_EMAIL": "recoverEmail",
        "REVERT_SECOND_FACTOR_ADDITION": "revertSecondFactorAddition",
    ]

    func verifyEmailLink(oobCode: String, apiKey: String?, tenantId: String?, continueUrl: String?) -> String {
        link(requestType: "VERIFY_EMAIL", oobCode: oobCode, apiKey: apiKey, tenantId: tenantId, continueUrl: continueUrl)
    }

    func link(requestType: String, oobCode: String, apiKey: String?, tenantId: String?, continueUrl: String?) -> String {
        let mode = Self.modes[requestType] ?? "verifyEmail"
        var parameters = [("mode", mode), ("lang", "en"), ("oobCode", oobCode), ("apiKey", apiKey ?? fallbackAPIKey)]
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
