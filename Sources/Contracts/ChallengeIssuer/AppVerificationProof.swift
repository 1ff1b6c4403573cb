/// The app's proof that a real app asks for the SMS (a reCAPTCHA token, an iOS receipt and its
/// secret, a Play Integrity token), as `sms.start` carries it. challenge-issuer hands it to the app
/// verifier plugins as PluginKit's `AppProof`, so the wire and the plugin API change separately.
public struct AppVerificationProof: Codable, Sendable, Hashable {
    public var recaptchaToken: String?
    public var iosReceipt: String?
    public var iosSecret: String?
    public var safetyNetToken: String?
    public var playIntegrityToken: String?

    public init(
        recaptchaToken: String?, iosReceipt: String?, iosSecret: String?, safetyNetToken: String?, playIntegrityToken: String?
    ) {
        (self.recaptchaToken, self.iosReceipt, self.iosSecret) = (recaptchaToken, iosReceipt, iosSecret)
        (self.safetyNetToken, self.playIntegrityToken) = (safetyNetToken, playIntegrityToken)
    }
}
