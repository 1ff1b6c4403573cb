import IdentityToolkit
import JSONRPC

/// The project and tenant of a privileged (`/v1/projects/{p}[/tenants/{t}]/…`) call. Naming a
/// project requires an admin credential (contract §1.3); a body `tenantId` must agree with the
/// path's (§1.4, `TENANT_ID_MISMATCH`).
struct AdminScope: Sendable {
    let projectId: String
    let tenantId: String?

    init(_ request: PublicRequest) throws {
        guard request.caller == .admin else {
            throw IdentityToolkitError.targetProjectNeedsAdmin
        }
        projectId =
            request.pathParameters["targetProjectId"] ?? request.body["targetProjectId"]?.stringValue
            ?? request.defaultProjectId
        let pathTenant = request.pathParameters["tenantId"]
        let bodyTenant = request.body["tenantId"]?.stringValue
        if let pathTenant, let bodyTenant, pathTenant != bodyTenant {
            throw IdentityToolkitError(.tenantIDMismatch)
        }
        tenantId = pathTenant ?? bodyTenant
    }
}
