import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// The settings of the project or tenant a request runs in, read from factor-registry on every
/// request (no cache: a change applies to the very next request on every gateway instance), and
/// the checks every client handler starts with (contract §2 prelude).
enum ScopeSettings {
    static func resolve(_ registry: RPCClient, projectId: String, tenantId: String?, requestID: String) async throws
        -> AuthSettings
    {
        try await PeerCall.call(
            registry, ResolveSettings.self, TenantScope(projectId: projectId, tenantId: tenantId), requestID: requestID
        ).settings
    }

    /// `PROJECT_DISABLED` when the tenant's `disableAuth` is set; checked before anything else.
    static func enabled(_ registry: RPCClient, projectId: String, tenantId: String?, requestID: String) async throws
        -> AuthSettings
    {
        let settings = try await resolve(registry, projectId: projectId, tenantId: tenantId, requestID: requestID)
        if settings.disableAuth { throw IdentityToolkitError.business("PROJECT_DISABLED") }
        return settings
    }
}
