import Contracts

/// `v1/accounts:sendVerificationCode`: an SMS code for phone sign-in, with the app's proof.
struct SendVerificationCodeRequest: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1SendVerificationCodeRequest"
    var tenantId: String?
    var phoneNumber: String?
    var recaptchaToken: String?
    /// What some SDK versions send for a reCAPTCHA: the same check.
    var captchaResponse: String?
    var iosReceipt: String?
    var iosSecret: String?
    var safetyNetToken: String?
    var playIntegrityToken: String?

    var proof: AppVerificationProof {
        AppVerificationProof(
            recaptchaToken: recaptchaToken ?? captchaResponse, iosReceipt: iosReceipt, iosSecret: iosSecret,
            safetyNetToken: safetyNetToken, playIntegrityToken: playIntegrityToken
        )
    }
}
