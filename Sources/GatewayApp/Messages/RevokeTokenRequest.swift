/// `v2/accounts:revokeToken` (the SDKs' `revokeAccessToken`, iOS's `revokeToken(withAuthorizationCode:)`).
struct RevokeTokenRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV2RevokeTokenRequest"
    var idToken: String?
    var tenantId: String?
    var providerId: String?
    var tokenType: String?
    var token: String?
    var redirectUri: String?
}
