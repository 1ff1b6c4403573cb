/// `v1/accounts:verifyIosClient`: the device token a silent push proves the app with (contract §2.13).
struct VerifyIosClientRequest: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1VerifyIosClientRequest"
    var appToken: String?
    var isSandbox: Bool?
}
