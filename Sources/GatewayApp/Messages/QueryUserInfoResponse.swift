struct QueryUserInfoResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1QueryUserInfoResponse"
    /// int64 as a string.
    var recordsCount: String
    var userInfo: [UserInfo]?
}
