/// The answer of `v1/accounts:delete`.
struct DeleteAccountResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1DeleteAccountResponse"
    var kind = "identitytoolkit#DeleteAccountResponse"
}
