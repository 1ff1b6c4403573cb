import Contracts
import IdentityToolkit
import JSONRPC
import TenantStore

/// The one door from a project or tenant named in a call to the PostgreSQL schema that holds its
/// data, in every data service: an id that cannot name one is ``invalid`` (`TENANT_NOT_FOUND`), the
/// same answer a schema dropped meanwhile gets (``ServiceHost``'s error translation maps a missing
/// schema, and an invalid id that reached `TenantSchema` by another way, to it too).
///
/// Whether the project or tenant is active is factor-registry's to say (`AccountService.activeSchema`
/// passes through here first); the other services hold a schema only while it is.
public enum ScopeSchema {
    /// The answer to an id that cannot be a project's or a tenant's.
    public static let invalid = RPCError(code: .invalidTenantScope, business: IdentityToolkitError(.tenantNotFound))

    public static func of(_ projectId: String, _ tenantId: String?) throws(RPCError) -> TenantSchema {
        do {
            return try TenantSchema(projectId: projectId, tenantId: tenantId)
        } catch {
            throw invalid
        }
    }

    public static func of(_ scope: TenantScope) throws(RPCError) -> TenantSchema {
        try of(scope.projectId, scope.tenantId)
    }
}
