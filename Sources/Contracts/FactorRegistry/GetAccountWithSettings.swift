import JSONRPC

/// `account.getWithSettings`: one account and the settings of its project or tenant in one call.
/// A sign-in step needs both, and one call instead of two saves a round trip on the hottest path
/// (docs/performance.md). An unknown account is not an error here: `account` is absent, so that the
/// caller can apply the settings' checks first, as the contract orders them.
public enum GetAccountWithSettings: RPCMethod {
    public static let name = "account.getWithSettings"

    public typealias Params = GetAccount.Params

    public struct Result: Codable, Sendable, Hashable {
        public var settings: AuthSettings
        public var account: Account?

        public init(settings: AuthSettings, account: Account?) {
            self.settings = settings
            self.account = account
        }
    }
}
