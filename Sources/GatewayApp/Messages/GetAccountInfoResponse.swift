/// The answer of `v1/accounts:lookup`: `users` is left out when nothing matched (the SDKs rely on it).
struct GetAccountInfoResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1GetAccountInfoResponse"
    var kind = "identitytoolkit#GetAccountInfoResponse"
    var users: [UserInfo]?
}
