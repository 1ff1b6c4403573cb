/// The answer of `…/accounts:batchGet` (listUsers): a page of accounts by `localId`.
struct DownloadAccountResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1DownloadAccountResponse"
    var kind = "identitytoolkit#DownloadAccountResponse"
    var users: [UserInfo]
    var nextPageToken: String?
}
