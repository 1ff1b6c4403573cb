/// `phoneEnrollmentInfo` of `mfaEnrollment:start` and `phoneSignInInfo` of `mfaSignIn:start`: the
/// number to enrol (a sign-in sends to the enrolled one) and the app's proof that it is a real app.
struct StartMFAPhoneRequestInfo: DiscoveryMessage, AppProofMembers {
    static let schema = "GoogleCloudIdentitytoolkitV2StartMfaPhoneRequestInfo"
    var phoneNumber: String?
    var recaptchaToken: String?
    var captchaResponse: String?
    var iosReceipt: String?
    var iosSecret: String?
    var safetyNetToken: String?
    var playIntegrityToken: String?
}

/// `phoneVerificationInfo` of both finalizes: the code the SMS carried, and the session it was sent in.
struct FinalizeMFAPhoneRequestInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2FinalizeMfaPhoneRequestInfo"
    var code: String?
    var sessionInfo: String?
    /// Android's proof instead of a code, which this server does not accept.
    var androidVerificationProof: String?
}

/// `phoneSessionInfo` of `mfaEnrollment:start`, `phoneResponseInfo` of `mfaSignIn:start`: the
/// session the code was sent in, which the finalize names.
struct StartMFAPhoneResponseInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2StartMfaPhoneResponseInfo"
    var sessionInfo: String
}
