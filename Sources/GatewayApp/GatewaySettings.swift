import Configuration
import ServiceKit

/// What the gateway reads from its configuration, read once at start-up: where its public listeners
/// are, how mailed links are made, and the values it answers with. A bad value stops the start with
/// the key's name.
struct GatewaySettings: Sendable {
    let publicHost: String
    let publicPort: Int
    /// `0`: no TLS listener.
    let tlsPort: Int
    let tlsCertificateFile: String
    let tlsPrivateKeyFile: String
    /// Where out-of-band links point (`/emulator/action` on this gateway unless configured).
    let oobLinkBase: String
    let oobLinkAPIKey: String
    /// Sent as `project_id` by the token endpoint (Google sends the project number there).
    let projectNumber: String
    let apiKeys: [String]
    let recentLogin: RecentLogin
    let clientAddress: ClientAddress
    /// The scopes' switches while no operator has set them.
    let modeDefaults: ModeDefaults
    /// Improved email privacy (decision 19) when a scope has not set it: on in production.
    var emailPrivacyByDefault: Bool { modeDefaults.improvedEmailPrivacy }

    init(_ host: ServiceHost) throws {
        let reader = host.settings.reader
        publicHost = reader.string(forKey: "public.host", default: "127.0.0.1")
        try host.settings.requireLoopbackInDevelopment(publicHost, key: "public.host")
        publicPort = reader.int(forKey: "public.port", default: 8080)
        tlsPort = reader.int(forKey: "public.tls.port", default: 0)
        tlsCertificateFile = reader.string(forKey: "public.tls.certificate", default: host.settings.tls.certificateFile)
        tlsPrivateKeyFile = reader.string(forKey: "public.tls.privateKey", default: host.settings.tls.privateKeyFile)
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
        recentLogin = try RecentLogin(reader: reader)
        clientAddress = try ClientAddress(reader: reader)
        modeDefaults = ModeDefaults(mode: host.settings.mode)
    }
}
