/// `v1/accounts:resetPassword`: a reset code checked, or used with the new password.
struct ResetPasswordRequest: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1ResetPasswordRequest"
    var tenantId: String?
    var oobCode: String?
    var newPassword: String?
}
