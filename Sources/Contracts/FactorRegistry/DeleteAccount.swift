import JSONRPC

/// `account.delete`: removes an account; unknown → `USER_NOT_FOUND`.
public enum DeleteAccount: RPCMethod {
    public static let name = "account.delete"
    public typealias Params = GetAccount.Params
    public typealias Result = RPCEmpty
}
