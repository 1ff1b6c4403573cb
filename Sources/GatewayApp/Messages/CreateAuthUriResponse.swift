/// The answer of `v1/accounts:createAuthUri`.
struct CreateAuthUriResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1CreateAuthUriResponse"
    var kind = "identitytoolkit#CreateAuthUriResponse"
    var sessionId: String
    var registered: Bool?
    var signinMethods: [String]?
    var allProviders: [String]?
    var authUri: String?
    var providerId: String?
}
