import JSONRPC

/// `account.deleteAll`: removes every account of a project or tenant (the development helper
/// `DELETE /emulator/v1/projects/{p}[/tenants/{t}]/accounts`; the gateway offers it only in
/// development mode).
public enum DeleteAllAccounts: RPCMethod {
    public static let name = "account.deleteAll"
    /// Never batched: it deletes every account (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false
    public typealias Params = TenantScope
    public typealias Result = RPCEmpty
}
