import Contracts

/// The answer of `v1/accounts:update` (the user's own change, a code applied, an admin's update):
/// the account's profile, and new tokens after a password or email change (contract §2.4).
struct SetAccountInfoResponse: SessionAnswer {
    static let schema = "GoogleCloudIdentitytoolkitV1SetAccountInfoResponse"
    var kind = "identitytoolkit#SetAccountInfoResponse"
    var localId: String
    var emailVerified: Bool
    var email: String?
    var displayName: String?
    var photoUrl: String?
    var providerUserInfo: [ProviderUserInfo]?
    var passwordHash: String?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}

extension SetAccountInfoResponse {
    /// The account's profile as lookups show it.
    init(_ account: Account) {
        let info = UserInfo(account, tenantId: nil)
        self.init(
            localId: account.localId, emailVerified: account.emailVerified, email: info.email, displayName: info.displayName,
            photoUrl: info.photoUrl, providerUserInfo: info.providerUserInfo, passwordHash: info.passwordHash
        )
    }
}
