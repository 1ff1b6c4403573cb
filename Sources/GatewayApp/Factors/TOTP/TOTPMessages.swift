/// `totpEnrollmentInfo` of `mfaEnrollment:start`: empty; its presence names the kind.
struct StartMFATOTPEnrollmentRequestInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2StartMfaTotpEnrollmentRequestInfo"
}

/// `totpVerificationInfo` of `mfaEnrollment:finalize`: the first code, and the session that holds
/// the secret it was made from.
struct FinalizeMFATOTPEnrollmentRequestInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2FinalizeMfaTotpEnrollmentRequestInfo"
    var verificationCode: String?
    var sessionInfo: String?
}

/// `totpVerificationInfo` of `mfaSignIn:finalize`: a code of the factor `mfaEnrollmentId` names.
struct MFATOTPSignInRequestInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2MfaTotpSignInRequestInfo"
    var verificationCode: String?
}

/// `totpSessionInfo` of `mfaEnrollment:start`: the new secret, shown this once, how its codes are
/// made, and the session the finalize names before `finalizeEnrollmentTime`.
struct StartMFATOTPEnrollmentResponseInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2StartMfaTotpEnrollmentResponseInfo"
    var sharedSecretKey: String
    var verificationCodeLength: Int
    var hashingAlgorithm: String
    var periodSec: Int
    var sessionInfo: String
    var finalizeEnrollmentTime: String
}
