/// The answer of `v1/accounts:resetPassword`: what a code is for (checked without a new password),
/// or the reset done.
struct ResetPasswordResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1ResetPasswordResponse"
    var kind = "identitytoolkit#ResetPasswordResponse"
    var requestType: String
    var email: String
    var newEmail: String?
    /// The factor a `REVERT_SECOND_FACTOR_ADDITION` code removes, masked.
    var mfaInfo: MFAEnrollment?
}
