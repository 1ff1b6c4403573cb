import AuthVocabulary
import Foundation

/// The out-of-band link a user follows: `<base>?mode=<mode>&lang=<language>&oobCode=…&apiKey=…`
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
    static let modes: [OOBRequestType: String] = [
        .verifyEmail: "verifyEmail", .passwordReset: "resetPassword", .emailSignIn: "signIn",
        .verifyAndChangeEmail: "verifyAndChangeEmail", .recoverEmail: "recoverEmail",
        .revertSecondFactorAddition: "revertSecondFactorAddition", .revertPhoneNumberAddition: "revertPhoneNumberAddition",
    ]

    /// `locale` is the client's `X-Firebase-Locale`: the link's `lang`, so that what the link's page
    /// mails in turn (an email change's notice) is in the same language. Anything but a plain
    /// language tag is `en`.
    func link(requestType: OOBRequestType, oobCode: String, apiKey: String?, tenantId: String?, continueUrl: String?, locale: String? = nil)
        -> String
    {
        let mode = Self.modes[requestType] ?? "verifyEmail"
        var parameters = [("mode", mode), ("lang", Self.lang(locale)), ("oobCode", oobCode), ("apiKey", apiKey ?? fallbackAPIKey)]
        if let tenantId { parameters.append(("tenantId", tenantId)) }
        if let continueUrl { parameters.append(("continueUrl", continueUrl)) }
        let query = parameters.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")"
        }
        return base + "?" + query.joined(separator: "&")
    }

    static func lang(_ locale: String?) -> String {
        guard let locale, (2...35).contains(locale.utf8.count),
            locale.utf8.allSatisfy({
                $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || ($0 < 128 && Character(UnicodeScalar($0)).isLetter)
                    || ($0 >= 48 && $0 <= 57)
            })
        else { return "en" }
        return locale
    }

    /// An absolute URI with a scheme and a host (`INVALID_CONTINUE_URI` otherwise).
    static func isAbsolute(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme, let host = url.host else {
            return false
        }
        return !scheme.isEmpty && !host.isEmpty
    }
}
