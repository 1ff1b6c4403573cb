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
    func verify(_ proof: AppProof, context: AppVerificationContext) async -> AppVerdict
}

/// Where the SMS request that carries the proof comes from.
public struct AppVerificationContext: Sendable, Hashable {
    public var projectId: String
    public var tenantId: String?
    /// The project's authorized domains: a reCAPTCHA solved on another host is refused.
    public var authorizedDomains: [String]
    /// The number the SMS would go to: an attestation bound to another number is refused.
    public var phoneNumber: String?

    public init(projectId: String, tenantId: String?, authorizedDomains: [String], phoneNumber: String? = nil) {
        self.projectId = projectId
        self.tenantId = tenantId
        self.authorizedDomains = authorizedDomains
        self.phoneNumber = phoneNumber
    }
}

public enum AppVerdict: Sendable, Hashable {
    case verified
    /// The proof was checked and failed; `captcha` says it was a reCAPTCHA (`CAPTCHA_CHECK_FAILED`).
    case rejected(captcha: Bool)
    case notApplicable
    /// The verifier's own endpoint did not answer in time: nothing is sent, and the client hears
    /// that the service is unavailable rather than that its proof was bad.
    case unavailable(reason: String)
}
