import JSONRPC

/// `challenge.forgetAccounts`: deletes the TOTP secrets and open verification sessions of deleted
/// accounts. Idempotent.
public enum ForgetAccountChallenges: RPCMethod {
    public static let name = "challenge.forgetAccounts"
    public typealias Params = AccountsToForget
    public typealias Result = ForgottenRows
}
