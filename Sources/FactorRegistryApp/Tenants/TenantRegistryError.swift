import Contracts
import IdentityToolkit
import JSONRPC

/// The registry's failures as the wire sees them: each carries its Identity Toolkit string.
enum TenantRegistryError {
    static let tenantNotFound = RPCError(code: .tenantNotFound, business: IdentityToolkitError(.tenantNotFound))
    static let projectNotFound = RPCError(code: .projectNotFound, business: IdentityToolkitError(.configurationNotFound))
    static func invalid(_ detail: String) -> RPCError {
        RPCError(code: .invalidTenantRequest, business: IdentityToolkitError(.invalidArgument, detail: detail))
    }
    static let provisioningFailed = RPCError(
        code: .tenantProvisioningFailed,
        message: "Tenant schemas could not be provisioned in every service yet; the registry keeps retrying"
    )
    static let conflict = RPCError(code: .settingsConflict, message: "The settings changed since they were read; read again")
    static let storeInconsistent = RPCError(code: .internalError, message: "Internal error")
}
