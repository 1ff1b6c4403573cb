/// `v2/accounts/mfaRecoveryCodes:generate|lookup` (this server's own, `identitytoolkit/extensions.json`):
/// the signed-in user's recovery codes (docs/mfa-policy.md); `lookup` also takes an admin's `localId`.
struct RecoveryCodesRequest: SignedInRequest {
    static let schema = "MfaRecoveryCodesRequest"
    var idToken: String?
    var tenantId: String?
    /// Admin lookups only: whose set.
    var localId: String?
}
