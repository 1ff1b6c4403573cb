import Contracts
import JSONRPC

/// The registry's failures as the wire sees them: each carries its Identity Toolkit string.
enum TenantRegistryError {
    static let tenantNotFound = RPCError(code: .tenantNotFound, identityToolkitError: "TENANT_NOT_FOUND")
    static let projectNotFound = RPCError(code: .projectNotFound, identityToolkitError: "CONFIGURATION_NOT_FOUND")
    static func invalid(_ detail: String) -> RPCError {
        RPCError(code: .invalidTenantRequest, identityToolkitError: "INVALID_ARGUMENT : \(detail)")
    }
    static let provisioningFailed = RPCError(
        code: .tenantProvisioningFailed,
        message: "Tenant schemas could not be provisioned in every service yet; the registry keeps retrying"
    )
    static let conflict = RPCError(code: .settingsConflict, message: "The settings changed since they were read; read again")
    static let storeInconsistent = RPCError(code: .internalError, message: "Internal error")
}
