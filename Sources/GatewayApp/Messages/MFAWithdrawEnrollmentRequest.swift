/// `v2/projects/{p}[/tenants/{t}]/accounts:withdrawMfaEnrollment`, this server's own: an admin
/// removes one factor of a user (`identitytoolkit/extensions.json`).
struct MFAWithdrawEnrollmentRequest: DiscoveryMessage {
    static let schema = "MfaWithdrawMfaEnrollmentRequest"
    var localId: String?
    var mfaEnrollmentId: String?
}
