import JSONRPC

/// `session.forgetAccounts`: deletes the sessions (with their refresh tokens) and pending
/// second-factor sign-ins of deleted accounts. Idempotent.
public enum ForgetAccountSessions: RPCMethod {
    public static let name = "session.forgetAccounts"
    public typealias Params = AccountsToForget
    public typealias Result = ForgottenRows
}
