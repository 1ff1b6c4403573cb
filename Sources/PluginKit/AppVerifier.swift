/// Proof that an SMS request comes from the real app (contract decision 10): one of these fields of
/// `phoneEnrollmentInfo` / `phoneSignInInfo` / `sendVerificationCode`.
public struct AppProof: Sendable, Hashable, Codable {
    public var recaptchaToken: String?
    public var iosReceipt: String?
    public var iosSecret: String?
    public var safetyNetToken: String?
    public var playIntegrityToken: String?

    public init(
        recaptchaToken: String? = nil, iosReceipt: String? = nil, iosSecret: String? = nil, safetyNetToken: String? = nil,
        playIntegrityToken: String? = nil
    ) {
        self.recaptchaToken = recaptchaToken
        self.iosReceipt = iosReceipt
        self.iosSecret = iosSecret
        self.safetyNetToken = safetyNetToken
        self.playIntegrityToken = playIntegrityToken
    }

    /// No proof at all (`MISSING_APP_CREDENTIAL`).
    public var isEmpty: Bool {
        [recaptchaToken, iosReceipt, safetyNetToken, playIntegrityToken].allSatisfy { $0?.isEmpty ?? true }
    }
}

/// Checks one kind of app proof. A verifier that does not handle the proof's kind answers
/// `.notApplicable`, so the next one in the configured list gets it.
public protocol AppVerifier: Sendable {
    var name: String { get }
    func verify(_ proof: AppProof) async -> AppVerdict
}

public enum AppVerdict: Sendable, Hashable {
    case verified
    /// The proof was checked and failed; `captcha` says it was a reCAPTCHA (`CAPTCHA_CHECK_FAILED`).
    case rejected(captcha: Bool)
    case notApplicable
}
