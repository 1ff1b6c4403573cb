/// `v1/accounts:sendVerificationCode`: an SMS code for phone sign-in, with the app's proof.
struct SendVerificationCodeRequest: DiscoveryMessage, AppProofMembers {
    static let schema = "GoogleCloudIdentitytoolkitV1SendVerificationCodeRequest"
    var tenantId: String?
    var phoneNumber: String?
    var recaptchaToken: String?
    var captchaResponse: String?
    var iosReceipt: String?
    var iosSecret: String?
    var safetyNetToken: String?
    var playIntegrityToken: String?
}
