import IdentityToolkit
import JSONRPC

/// The project and tenant of a privileged (`/v1/projects/{p}[/tenants/{t}]/…`) call. Naming a
/// project requires an admin credential (contract §1.3); a body `tenantId` must agree with the
/// path's (§1.4, `TENANT_ID_MISMATCH`).
struct AdminScope: Sendable {
    let projectId: String
    let tenantId: String?

    /// `targetProjectId`, `tenantId`: the body's, where its message has them.
    init(_ request: PublicRequest, targetProjectId: String? = nil, tenantId bodyTenant: String? = nil) throws {
        guard request.caller == .admin else {
            throw IdentityToolkitError.targetProjectNeedsAdmin
        }
        projectId =
            request.pathParameters["targetProjectId"] ?? targetProjectId ?? request.defaultProjectId
        let pathTenant = request.pathParameters["tenantId"]
        if let pathTenant, let bodyTenant, pathTenant != bodyTenant {
            throw IdentityToolkitError(.tenantIDMismatch)
        }
        tenantId = pathTenant ?? bodyTenant
    }
}

extension AdminScope {
    /// The scope of an admin call to a project or tenant that must exist: an unknown tenant is
    /// `TENANT_NOT_FOUND`, a disabled project `PROJECT_DISABLED`, before the operation does anything.
    static func existing(_ request: PublicRequest, in settings: CachedSettings) async throws -> AdminScope {
        let scope = try AdminScope(request)
        _ = try await settings.enabled(projectId: scope.projectId, tenantId: scope.tenantId, requestID: request.requestID)
        return scope
    }
}
