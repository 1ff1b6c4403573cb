/// The answer of `…/accounts:batchDelete`: `{}` when every account went, else one entry per kept one.
struct BatchDeleteAccountsResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1BatchDeleteAccountsResponse"
    var errors: [BatchDeleteErrorInfo]?
}

/// An account a batch delete kept: its place in the request, and why.
struct BatchDeleteErrorInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1BatchDeleteErrorInfo"
    var index: Int
    var localId: String
    var message: String
}
