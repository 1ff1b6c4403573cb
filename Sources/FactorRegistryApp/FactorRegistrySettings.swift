import ServiceKit

/// What factor-registry reads from its configuration, once at start-up.
struct FactorRegistrySettings: Sendable {
    let reconcileInterval: Duration
    let scrypt: (rounds: Int, blockSize: Int, parallelism: Int)
    /// `passwords.scrypt.projects`: per-project scrypt parameters (imported hashes).
    let scryptProjects: [String]
    let maximumQueuedHashes: Int
    let maximumEnrollments: Int
    let oobCodeLifetimes: OOBCodeLifetimes
    let expiredOobCodeRetention: Duration
    let oobCodeSweepInterval: Duration
    /// How long an account held for its `beforeCreate` function may stay held before it is removed.
    let heldAccountRetention: Duration
    let heldAccountSweepInterval: Duration
    let orphanSecretMinimumAge: Duration
    let orphanSecretSweepInterval: Duration
    /// Seals what factor-registry keeps secret at rest (imported HMAC keys).
    let masterKeyBase64: String?
    let masterKeyFile: String
    /// `identityProviders.trustRoots`: CA certificates (PEM) trusted besides the system's for the
    /// identity providers' endpoints (a private provider, a test's stand-in).
    let identityProviderTrustRoots: String?

    init(_ host: ServiceHost) {
        let reader = host.settings.reader
        reconcileInterval = .milliseconds(reader.int(forKey: "reconcile.intervalMs", default: 2000))
        scrypt = (
            reader.int(forKey: "passwords.scrypt.rounds", default: 16384), reader.int(forKey: "passwords.scrypt.blockSize", default: 8),
            reader.int(forKey: "passwords.scrypt.parallelism", default: 1)
        )
        scryptProjects = reader.stringArray(forKey: "passwords.scrypt.projects", default: [])
        maximumQueuedHashes = reader.int(forKey: "passwords.maximumQueued", default: 64)
        maximumEnrollments = reader.int(forKey: "enrollments.maximum", default: 5)
        oobCodeLifetimes = OOBCodeLifetimes(
            standard: .seconds(reader.int(forKey: "oobCodes.lifetimeSeconds", default: 3 * 24 * 3600)),
            passwordReset: .seconds(reader.int(forKey: "oobCodes.passwordResetLifetimeSeconds", default: 3600)),
            emailSignIn: .seconds(reader.int(forKey: "oobCodes.emailSignInLifetimeSeconds", default: 6 * 3600))
        )
        expiredOobCodeRetention = .seconds(reader.int(forKey: "oobCodes.expiredRetentionSeconds", default: 24 * 3600))
        oobCodeSweepInterval = .seconds(reader.int(forKey: "oobCodes.sweepSeconds", default: 600))
        heldAccountRetention = .seconds(reader.int(forKey: "accounts.heldRetentionSeconds", default: 120))
        heldAccountSweepInterval = .seconds(reader.int(forKey: "accounts.heldSweepSeconds", default: 60))
        orphanSecretMinimumAge = .seconds(reader.int(forKey: "orphanSecrets.minimumAgeSeconds", default: 3600))
        orphanSecretSweepInterval = .seconds(reader.int(forKey: "orphanSecrets.sweepSeconds", default: 3600))
        masterKeyBase64 = reader.string(forKey: "secrets.masterKey", isSecret: true)
        identityProviderTrustRoots = reader.string(forKey: "identityProviders.trustRoots")
        masterKeyFile = reader.string(
            forKey: "secrets.masterKeyFile",
            default: "\(reader.string(forKey: "tls.directory", default: ".stack/certs"))/factor-registry-master.key"
        )
    }
}
