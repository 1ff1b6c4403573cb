/// `v1/accounts:signInWithCustomToken`: a token the app's server signed with its service account.
struct SignInWithCustomTokenRequest: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1SignInWithCustomTokenRequest"
    var tenantId: String?
    var token: String?
}
