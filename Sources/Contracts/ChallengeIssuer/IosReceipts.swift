import JSONRPC

/// `ios.issueReceipt`: `v1/accounts:verifyIosClient`. Makes a receipt and a secret, sends the secret
/// (with the receipt) to the device in a silent APNs push, and returns the receipt. A later SMS
/// request proves it comes from the app on that device by sending both (`iosReceipt`, `iosSecret`);
/// each receipt works once, until it expires. Push failure: code 1110.
public enum IssueIosReceipt: RPCMethod {
    public static let name = "ios.issueReceipt"
    /// Never batched: it waits on APNs (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        /// The APNs device token (hex).
        public var appToken: String
        public var isSandbox: Bool
        /// The client's address (an IPv6 one as its /64): pushes are limited per address
        /// (`appVerification.ios.rateLimit.perAddress`, TOO_MANY_ATTEMPTS_TRY_LATER).
        public var clientAddress: String?

        public init(projectId: String, tenantId: String? = nil, appToken: String, isSandbox: Bool, clientAddress: String? = nil) {
            self.clientAddress = clientAddress
            self.projectId = projectId
            self.tenantId = tenantId
            self.appToken = appToken
            self.isSandbox = isSandbox
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var receipt: String
        /// Seconds the client should wait for the push.
        public var suggestedTimeout: Int

        public init(receipt: String, suggestedTimeout: Int) {
            self.receipt = receipt
            self.suggestedTimeout = suggestedTimeout
        }
    }
}
