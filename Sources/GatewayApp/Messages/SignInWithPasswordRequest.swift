/// `v1/accounts:signInWithPassword` (contract §2.2).
struct SignInWithPasswordRequest: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1SignInWithPasswordRequest"
    var tenantId: String?
    var email: String?
    var password: String?
    /// Linking and re-authenticating forms, which the contract answers 501.
    var idToken: String?
    var pendingIdToken: String?
}
