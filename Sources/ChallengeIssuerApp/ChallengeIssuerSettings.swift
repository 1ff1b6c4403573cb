import ServiceKit

/// What challenge-issuer reads from its configuration, once at start-up (the plugins' own keys are
/// read where each plugin is configured: FactorProviders, SMSSenders, EmailSenders, AppVerifiers).
struct ChallengeIssuerSettings: Sendable {
    let development: Bool
    let masterKeyBase64: String?
    let masterKeyFile: String
    /// `email.appName`; when unset, each message names the app by its project id (``AppName``).
    let appName: String?
    let smsAppName: String?
    let totpEnrollmentLifetime: Duration
    let totpMaximumFailures: Int
    let totpFailureWindow: Duration
    let smsPerNumber: RateLimiter.Rule
    let smsPerAddress: RateLimiter.Rule
    /// verifyIosClient sends a push per call: limited per client address like SMS sends.
    let iosPerAddress: RateLimiter.Rule
    let smsSessionLifetime: Duration
    let smsMaximumAttempts: Int
    let apnsProjects: [String]
    let iosReceiptLifetime: Duration
    let iosSuggestedTimeoutSeconds: Int
    let expiredSessionRetention: Duration
    /// `passkeys.challengeLifetimeSeconds`: how long a WebAuthn ceremony may take.
    let passkeyChallengeLifetime: Duration
    let passkeyChallengesPerAddress: RateLimiter.Rule
    let developmentOutboxRetention: Duration
    let sweepInterval: Duration
    /// The deployment's SMS pumping defaults and price table (`sms.defense.*`, `sms.prices.*`).
    let smsDefense: SMSDefenseLimits
    let smsDefenseWebhook: String?
    let smsDefenseWebhookTrustRoots: String?

    init(_ host: ServiceHost) throws {
        let reader = host.settings.reader
        let generous = host.settings.mode == .development
        development = generous
        masterKeyBase64 = reader.string(forKey: "secrets.masterKey", isSecret: true)
        masterKeyFile = reader.string(
            forKey: "secrets.masterKeyFile",
            default: "\(reader.string(forKey: "tls.directory", default: ".stack/certs"))/challenge-issuer-master.key"
        )
        appName = reader.string(forKey: "email.appName")
        smsAppName = reader.string(forKey: "sms.appName") ?? appName
        totpEnrollmentLifetime = .seconds(reader.int(forKey: "totp.enrollmentLifetimeSeconds", default: 300))
        totpMaximumFailures = reader.int(forKey: "totp.maximumFailures", default: 5)
        totpFailureWindow = .seconds(reader.int(forKey: "totp.failureWindowSeconds", default: 300))
        smsPerNumber = RateLimiter.Rule(reader, "sms.rateLimit.perNumber", burst: generous ? 60 : 5, perHour: generous ? 3600 : 10)
        smsPerAddress = RateLimiter.Rule(reader, "sms.rateLimit.perAddress", burst: generous ? 120 : 10, perHour: generous ? 7200 : 50)
        iosPerAddress = RateLimiter.Rule(
            reader, "appVerification.ios.rateLimit.perAddress", burst: generous ? 120 : 10, perHour: generous ? 7200 : 50
        )
        smsSessionLifetime = .seconds(reader.int(forKey: "sms.sessionLifetimeSeconds", default: 600))
        smsMaximumAttempts = reader.int(forKey: "sms.maximumAttempts", default: 5)
        apnsProjects = reader.stringArray(forKey: "appVerification.apns.projects", default: [])
        iosReceiptLifetime = .seconds(reader.int(forKey: "appVerification.ios.receiptLifetimeSeconds", default: 300))
        iosSuggestedTimeoutSeconds = reader.int(forKey: "appVerification.ios.suggestedTimeoutSeconds", default: 5)
        expiredSessionRetention = .seconds(reader.int(forKey: "verification.expiredRetentionSeconds", default: 24 * 3600))
        passkeyChallengeLifetime = .seconds(min(max(reader.int(forKey: "passkeys.challengeLifetimeSeconds", default: 300), 10), 3600))
        passkeyChallengesPerAddress = RateLimiter.Rule(
            reader, "passkeys.rateLimit.perAddress", burst: generous ? 1000 : 30, perHour: generous ? 60_000 : 600
        )
        developmentOutboxRetention = .seconds(reader.int(forKey: "developmentOutbox.retentionSeconds", default: 3 * 24 * 3600))
        sweepInterval = .seconds(reader.int(forKey: "verification.sweepSeconds", default: 60))
        let defaultPrice = reader.double(forKey: "sms.prices.defaultUsd", default: 0.05)
        let prices = try reader.string(forKey: "sms.prices.file").map(SMSPrices.load(path:)) ?? SMSPrices(defaultUsd: defaultPrice)
        smsDefense = SMSDefenseLimits(reader, development: generous, prices: prices)
        smsDefenseWebhook = reader.string(forKey: "sms.defense.webhookUrl")
        smsDefenseWebhookTrustRoots = reader.string(forKey: "sms.defense.webhookTrustRoots")
    }
}
