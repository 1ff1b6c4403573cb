/// The answer of `v1/accounts:verifyIosClient`: the receipt the silent push's secret goes with,
/// and how long (seconds, int64 as a string) the app should wait for the push.
struct VerifyIosClientResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1VerifyIosClientResponse"
    var receipt: String
    var suggestedTimeout: String
}
