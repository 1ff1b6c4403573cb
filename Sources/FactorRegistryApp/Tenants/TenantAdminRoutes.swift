import Contracts
import Foundation
import Hummingbird
import JSONRPC
import ServiceKit

/// Tenant provisioning for operators on the ops listener (admin credential required):
/// `GET /admin/tenants?projectId=`, `POST /admin/tenants`, `DELETE /admin/tenants/{tenantId}?projectId=`.
struct TenantAdminRoutes: Sendable {
    let registry: TenantRegistry

    struct CreateBody: Decodable {
        var projectId: String?
        var displayName: String?
        var idempotencyKey: String?
    }

    func add(to admin: RouterGroup<BasicRequestContext>) {
        admin.get("tenants") { request, _ in
            await Self.answer {
                let query = request.uri.queryParameters
                return try await registry.list(
                    ListTenants.Params(
                        projectId: query["projectId"].map(String.init) ?? registry.defaultProjectId,
                        pageSize: query["pageSize"].flatMap { Int(String($0)) },
                        pageToken: query["pageToken"].map(String.init)
                    )
                )
            }
        }
        admin.post("tenants") { request, context in
            let bytes = try await request.body.collect(upTo: 64 * 1024)
            guard let body = try? JSONDecoder().decode(CreateBody.self, from: Data(buffer: bytes)) else {
                return OpsRouter.error(.badRequest, "body must be a JSON object {projectId?, displayName?, idempotencyKey?}")
            }
            return await Self.answer {
                try await registry.create(
                    CreateTenant.Params(
                        projectId: body.projectId ?? registry.defaultProjectId,
                        displayName: body.displayName,
                        idempotencyKey: body.idempotencyKey
                    )
                )
            }
        }
        admin.delete("tenants/:tenantId") { request, context in
            let tenantId = try context.parameters.require("tenantId")
            let projectId = request.uri.queryParameters["projectId"].map(String.init) ?? registry.defaultProjectId
            return await Self.answer {
                try await registry.delete(.init(projectId: projectId, tenantId: tenantId))
                return RPCEmpty()
            }
        }
    }

    /// Runs an operation and maps the registry's errors to HTTP statuses.
    static func answer(_ operation: () async throws -> some Encodable) async -> Response {
        do {
            return OpsRouter.json(.ok, try await operation())
        } catch let error as RPCError {
            let status: HTTPResponse.Status =
                switch error.code {
                case .tenantNotFound, .projectNotFound, .invalidTenantScope: .notFound
                case .tenantProvisioningFailed: .serviceUnavailable
                case .invalidTenantRequest: .badRequest
                default: .internalServerError
                }
            return OpsRouter.error(status, error.identityToolkitError ?? error.message)
        } catch {
            return OpsRouter.error(.internalServerError, "internal error")
        }
    }
}
