import JSONRPC

/// `tenant.delete`: drops the tenant's schema in every data service, then forgets the tenant.
/// A deletion interrupted half-way is finished by the registry's reconciler.
public enum DeleteTenant: RPCMethod {
    public static let name = "tenant.delete"
    /// Never batched: it drops a schema (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false
    public typealias Params = GetTenant.Params
    public typealias Result = RPCEmpty
}
