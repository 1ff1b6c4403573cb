import Contracts
import IdentityToolkit
import JSONRPC
import TenantStore

/// The schema of a project or tenant named in a request; a name that cannot be one is
/// `TENANT_NOT_FOUND` (a schema dropped meanwhile is mapped the same way by the service host).
enum ScopeSchema {
    static func of(_ projectId: String, _ tenantId: String?) throws -> TenantSchema {
        do {
            return try TenantSchema(projectId: projectId, tenantId: tenantId)
        } catch {
            throw RPCError(code: .invalidTenantScope, business: IdentityToolkitError(.tenantNotFound))
        }
    }
}
