import JSONRPC

/// `tenant.get`: one tenant; unknown (or not yet active) → `TENANT_NOT_FOUND`.
public enum GetTenant: RPCMethod {
    public static let name = "tenant.get"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String

        public init(projectId: String, tenantId: String) {
            self.projectId = projectId
            self.tenantId = tenantId
        }
    }

    public typealias Result = Tenant
}
