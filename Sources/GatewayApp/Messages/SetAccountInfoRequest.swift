/// `v1/accounts:update` (contract §2.4): the signed-in user's changes, an email-change or
/// verification code applied, or (admin) updateUser and revokeRefreshTokens.
struct SetAccountInfoRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV1SetAccountInfoRequest"
    var idToken: String?
    var tenantId: String?
    var targetProjectId: String?
    var oobCode: String?
    var localId: String?
    var email: String?
    var password: String?
    var displayName: String?
    var photoUrl: String?
    var phoneNumber: String?
    var emailVerified: Bool?
    var disableUser: Bool?
    var customAttributes: String?
    /// Seconds since the epoch (int64 as a string): tokens issued before it end.
    var validSince: String?
    /// `DISPLAY_NAME`, `PHOTO_URL`.
    var deleteAttribute: [String]?
    /// `phone` unlinks the number.
    var deleteProvider: [String]?
    /// Credential ids (as `passkeyInfo` shows them) of the user's passkeys to delete (issue 59).
    var deletePasskey: [String]?
    /// The Admin SDKs' factor list, which replaces the account's.
    var mfa: MFAEnrollmentList?
}
