import JSONRPC

/// `tenantSchema.drop`: drops the tenant's schema and all its data in the called service.
/// Idempotent: dropping a schema that is already gone succeeds with `dropped: false`.
public enum DropTenantSchema: RPCMethod {
    public static let name = "tenantSchema.drop"
    /// Never batched: it drops a schema (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false
    public typealias Params = TenantScope

    public struct Result: Codable, Sendable, Hashable {
        public var schema: String
        /// Whether the schema existed before this call.
        public var dropped: Bool

        public init(schema: String, dropped: Bool) {
            self.schema = schema
            self.dropped = dropped
        }
    }
}
