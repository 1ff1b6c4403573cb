import Foundation
import ServiceKit

/// What session-token reads from its configuration, once at start-up.
struct SessionTokenSettings: Sendable {
    let masterKeyBase64: String?
    let masterKeyFile: String
    let keyRotationLead: TimeInterval
    /// ID tokens live an hour; a superseded key stays published a little longer.
    let keyRetention: TimeInterval
    let keyPublishMaxAgeSeconds: Int
    let keyRefreshInterval: Duration
    let issuerBase: String
    let pendingCredentialLifetime: Duration
    let pendingCredentialSweepInterval: Duration
    let serviceAccountFiles: [String]
    let acceptUnsignedCustomTokens: Bool
    let refreshesPerAddress: RateLimiter.Rule
    let rotatedTokenRetention: Duration
    let revokedSessionRetention: Duration
    let sessionSweepInterval: Duration

    init(_ host: ServiceHost) {
        let reader = host.settings.reader
        let development = host.settings.mode == .development
        masterKeyBase64 = reader.string(forKey: "secrets.masterKey", isSecret: true)
        masterKeyFile = reader.string(
            forKey: "secrets.masterKeyFile",
            default: "\(reader.string(forKey: "tls.directory", default: ".stack/certs"))/session-token-master.key"
        )
        keyRotationLead = TimeInterval(reader.int(forKey: "keys.rotationLeadSeconds", default: 300))
        keyRetention = TimeInterval(reader.int(forKey: "keys.retentionSeconds", default: 3600 + 300))
        keyPublishMaxAgeSeconds = reader.int(forKey: "keys.publishMaxAgeSeconds", default: 60)
        keyRefreshInterval = .seconds(reader.int(forKey: "keys.refreshSeconds", default: 30))
        issuerBase = reader.string(forKey: "tokens.issuerBase", default: "https://securetoken.google.com/")
        pendingCredentialLifetime = .seconds(reader.int(forKey: "mfa.pendingCredentialLifetimeSeconds", default: 600))
        pendingCredentialSweepInterval = .seconds(reader.int(forKey: "mfa.pendingCredentialSweepSeconds", default: 60))
        serviceAccountFiles = reader.stringArray(forKey: "customTokens.serviceAccountFiles", default: [])
        acceptUnsignedCustomTokens = reader.bool(forKey: "customTokens.acceptUnsigned", default: development)
        // A device refreshes about once an hour; many share an address behind NAT.
        refreshesPerAddress = RateLimiter.Rule(
            reader, "refresh.perAddress", burst: development ? 100_000 : 600, perHour: development ? 1_000_000 : 6_000
        )
        rotatedTokenRetention = .seconds(reader.int(forKey: "sessions.rotatedTokenRetentionSeconds", default: 30 * 24 * 3600))
        revokedSessionRetention = .seconds(reader.int(forKey: "sessions.revokedRetentionSeconds", default: 30 * 24 * 3600))
        sessionSweepInterval = .seconds(reader.int(forKey: "sessions.sweepSeconds", default: 3600))
    }
}
