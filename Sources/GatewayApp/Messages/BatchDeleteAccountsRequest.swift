/// `…/accounts:batchDelete` (deleteUsers): up to 1,000 accounts; only disabled ones unless `force`.
struct BatchDeleteAccountsRequest: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1BatchDeleteAccountsRequest"
    var tenantId: String?
    var localIds: [String]?
    var force: Bool?
}
