import JSONRPC

/// `tenant.create`: registers a tenant and provisions its schema in every data service before it
/// returns. With an `idempotencyKey`, a retry returns the tenant the first call created.
public enum CreateTenant: RPCMethod {
    public static let name = "tenant.create"
    /// Never batched: it creates a schema (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var displayName: String?
        public var idempotencyKey: String?
        /// Defaults to ``AuthSettings/tenantDefaults``.
        public var settings: AuthSettings?

        public init(projectId: String, displayName: String? = nil, idempotencyKey: String? = nil, settings: AuthSettings? = nil) {
            self.settings = settings
            self.projectId = projectId
            self.displayName = displayName
            self.idempotencyKey = idempotencyKey
        }
    }

    public typealias Result = Tenant
}
