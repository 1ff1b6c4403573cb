import Configuration

/// The providers Identity Platform configures by name (`defaultSupportedIdpConfigs/<idpId>`) that
/// this server signs in with: both speak OpenID Connect, so one verifier serves them and `oidc.*`
/// alike. Their issuers are Google's and Apple's; a deployment may point one elsewhere (a private
/// mirror, a test's stand-in) with `identityProviders.googleIssuer` / `.appleIssuer`.
struct DefaultSupportedProviders: Sendable {
    static let google = "google.com"
    static let apple = "apple.com"
    static let ids = [google, apple]
    /// What `GET v2/defaultSupportedIdps` lists.
    static let descriptions = [google: "Google", apple: "Apple"]

    let issuers: [String: String]

    init(googleIssuer: String = "https://accounts.google.com", appleIssuer: String = "https://appleid.apple.com") {
        issuers = [Self.google: googleIssuer, Self.apple: appleIssuer]
    }

    init(_ reader: ConfigReader) {
        self.init(
            googleIssuer: reader.string(forKey: "identityProviders.googleIssuer", default: "https://accounts.google.com"),
            appleIssuer: reader.string(forKey: "identityProviders.appleIssuer", default: "https://appleid.apple.com")
        )
    }

    /// Google's ID tokens may name their issuer without the scheme (Google's own verifiers accept both).
    func acceptedIssuers(_ providerId: String) -> Set<String> {
        guard let issuer = issuers[providerId] else { return [] }
        if providerId == Self.google, issuer.hasPrefix("https://") { return [issuer, String(issuer.dropFirst("https://".count))] }
        return [issuer]
    }
}
