import JSONRPC

/// `tenantSchema.provision`: creates the scope's schema in the called service and applies every
/// migration. Idempotent: provisioning a current schema applies nothing.
public enum ProvisionTenantSchema: RPCMethod {
    public static let name = "tenantSchema.provision"
    /// Never batched: it creates a schema (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false
    public typealias Params = TenantScope

    public struct Result: Codable, Sendable, Hashable {
        /// The PostgreSQL schema that holds the scope's data.
        public var schema: String
        /// How many migrations this call applied (0 when the schema was already current).
        public var migrationsApplied: Int

        public init(schema: String, migrationsApplied: Int) {
            self.schema = schema
            self.migrationsApplied = migrationsApplied
        }
    }
}
