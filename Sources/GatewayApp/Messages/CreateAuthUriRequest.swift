/// `v1/accounts:createAuthUri`: an email's sign-in methods (`identifier`), or a provider's
/// authorization URL for a web sign-in (`providerId`, `continueUri`).
struct CreateAuthUriRequest: TenantNamingRequest {
    static let schema = "GoogleCloudIdentitytoolkitV1CreateAuthUriRequest"
    var tenantId: String?
    var identifier: String?
    var continueUri: String?
    var providerId: String?
    var sessionId: String?
    var oauthScope: String?
    var customParameter: [String: String]?
    var context: String?
    var authFlowType: String?
}
