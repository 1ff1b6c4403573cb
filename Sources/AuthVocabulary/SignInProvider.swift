/// How a session's user signed in, its first factor: the ID token's `firebase.sign_in_provider`
/// and `providerUserInfo[].providerId`. Our own words for the first factors this server runs
/// (`password`, `phone`, `anonymous`, `custom`, `passkey`), and an identity provider's id for a
/// federated sign-in (`google.com`, `oidc.corp`, `saml.acme`), which is the operator's to name: so a
/// type over the string rather than an enum, with the fixed words as constants and the wire's and the
/// database's spelling as its raw value, unchanged.
public struct SignInProvider: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// An email and its password, or an email link (Identity Platform names both `password`).
    public static let password = SignInProvider(rawValue: "password")
    public static let phone = SignInProvider(rawValue: "phone")
    public static let anonymous = SignInProvider(rawValue: "anonymous")
    /// A custom token the operator's backend signed.
    public static let custom = SignInProvider(rawValue: "custom")
    public static let passkey = SignInProvider(rawValue: "passkey")
    /// Apple Game Center: Identity Platform allows no second factor after it.
    public static let gameCenter = SignInProvider(rawValue: "gc.apple.com")

    /// A federated provider's id (`google.com`, `oidc.…`, `saml.…`).
    public static func federated(_ providerId: String) -> SignInProvider { SignInProvider(rawValue: providerId) }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
