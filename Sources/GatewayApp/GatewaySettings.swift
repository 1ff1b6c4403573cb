import Configuration
import ServiceKit

/// What the gateway reads from its configuration, read once at start-up: where its public listeners
/// are, how mailed links are made, and the values it answers with. A bad value stops the start with
/// the key's name.
struct GatewaySettings: Sendable {
    let publicHost: String
    /// `0`: no plain HTTP listener (a deployment that publishes TLS only).
    let publicPort: Int
    /// `0`: no TLS listener.
    let tlsPort: Int
    let tlsCertificateFile: String
    let tlsPrivateKeyFile: String
    /// Where admin credentials are accepted, when not on the public listeners.
    let adminListener: AdminListenerSettings?
    /// Where out-of-band links point (`/emulator/action` on this gateway unless configured).
    let oobLinkBase: String
    let oobLinkAPIKey: String
    /// Sent as `project_id` by the token endpoint (Google sends the project number there).
    let projectNumber: String
    let apiKeys: [String]
    /// `appVerification.recaptcha.siteKey`: the reCAPTCHA site key web apps render the widget with
    /// (`GET v1/recaptchaParams`), the public half of the secret challenge-issuer verifies with. In
    /// development mode the Auth emulator's made-up key unless one is set: the web SDK's
    /// `RecaptchaVerifier` will not start without a key, even in emulator mode where it renders none.
    let recaptchaSiteKey: String?
    let recentLogin: RecentLogin
    /// `passkeys.maximumPerAccount`: passkeys one account may have (`PASSKEY_LIMIT_EXCEEDED` beyond).
    let maximumPasskeysPerAccount: Int
    let clientAddress: ClientAddress
    /// The scopes' switches while no operator has set them.
    let modeDefaults: ModeDefaults
    /// `blockingFunctions.trustRoots`: CA certificates (PEM) trusted besides the system's for
    /// blocking functions (a function behind a private CA, or a test's local one).
    let blockingFunctionTrustRoots: String?
    /// `blockingFunctions.allowPrivateAddresses`: functions may be on private, loopback or
    /// link-local addresses. Off by default in production (docs/blocking-functions.md); on in
    /// development, where teams run their functions locally, as the Functions emulator does (issue 58).
    let blockingFunctionsAllowPrivateAddresses: Bool
    /// Improved email privacy (decision 19) when a scope has not set it: on in production.
    var emailPrivacyByDefault: Bool { modeDefaults.improvedEmailPrivacy }

    init(_ host: ServiceHost) throws {
        let reader = host.settings.reader
        publicHost = reader.string(forKey: "public.host", default: "127.0.0.1")
        try host.settings.requireLoopbackInDevelopment(publicHost, key: "public.host")
        publicPort = reader.int(forKey: "public.port", default: 8080)
        tlsPort = reader.int(forKey: "public.tls.port", default: 0)
        if publicPort == 0, tlsPort == 0 {
            throw InvalidSetting(key: "public.port", reason: "0 turns the plain listener off, so public.tls.port must be set")
        }
        // The certificate the public sees is the operator's (a public CA's, for the name clients use).
        // Production never falls back on the gateway's internal identity: that certificate names the
        // service on the private network and its key is the one peers authenticate it by (issue 40, L-5).
        if host.settings.mode == .production, tlsPort > 0 {
            for key in ["public.tls.certificate", "public.tls.privateKey"] where reader.string(forKey: ConfigKey(key)) == nil {
                throw InvalidSetting(
                    key: key,
                    reason: "must be set in production when public.tls.port is: the certificate and key clients see for the public name"
                )
            }
        }
        tlsCertificateFile = reader.string(forKey: "public.tls.certificate", default: host.settings.tls.certificateFile)
        tlsPrivateKeyFile = reader.string(forKey: "public.tls.privateKey", default: host.settings.tls.privateKeyFile)
        adminListener = try AdminListenerSettings(host)
        // Production mails links to users: where they point is the operator's to say (the gateway's
        // own page at its public HTTPS name, `https://auth.example.com/emulator/action`, or the
        // app's own action handler); a default naming this process's listener would mail links to
        // an address users cannot reach, or to plain HTTP.
        if host.settings.mode == .production, reader.string(forKey: "oob.linkBase") == nil {
            throw InvalidSetting(
                key: "oob.linkBase", reason: "must be set in production: the public URL of the page mailed links open"
            )
        }
        oobLinkBase = reader.string(forKey: "oob.linkBase", default: "http://\(publicHost):\(publicPort)/emulator/action")
        oobLinkAPIKey = reader.string(forKey: "oob.linkApiKey", default: "fake-api-key")
        projectNumber = reader.string(forKey: "project.number", default: "12345")
        apiKeys = reader.stringArray(forKey: "api.keys", isSecret: true, default: [])
        recaptchaSiteKey =
            reader.string(forKey: "appVerification.recaptcha.siteKey")
            ?? (host.settings.mode == .development ? ClientConfigOperations.developmentSiteKey : nil)
        recentLogin = try RecentLogin(reader: reader)
        maximumPasskeysPerAccount = min(max(reader.int(forKey: "passkeys.maximumPerAccount", default: 10), 1), 100)
        clientAddress = try ClientAddress(reader: reader)
        modeDefaults = ModeDefaults(mode: host.settings.mode)
        blockingFunctionTrustRoots = reader.string(forKey: "blockingFunctions.trustRoots")
        blockingFunctionsAllowPrivateAddresses = reader.bool(
            forKey: "blockingFunctions.allowPrivateAddresses", default: host.settings.mode == .development)
    }
}
