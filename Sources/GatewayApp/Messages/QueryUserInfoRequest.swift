/// `v1/projects/{p}[/tenants/{t}]/accounts:query` and `v1/projects/{p}:queryAccounts`.
struct QueryUserInfoRequest: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1QueryUserInfoRequest"
    var tenantId: String?
    var returnUserInfo: Bool?
    /// int64 as strings.
    var limit: String?
    var offset: String?
    var expression: [SqlExpression]?
    var order: String?
    var sortBy: String?

    struct SqlExpression: Codable, Sendable {
        var email: String?
        var phoneNumber: String?
        var userId: String?
    }
}
