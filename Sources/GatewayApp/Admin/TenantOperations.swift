import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `/v2/projects/{p}/tenants[/{t}]` (and `/admin/v2/…`), contract §2.16 and decisions 5-6: create
/// (schemas provisioned in every data service before the answer), get, list, patch, delete.
struct TenantOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let defaults: ModeDefaults

    func create(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        let tenant = try await PeerCall.call(
            registry, CreateTenant.self,
            .init(
                projectId: scope.projectId, displayName: request.body["displayName"]?.stringValue,
                settings: try SettingsDocument.tenantSettings(request.body, mode: defaults)
            ),
            requestID: request.requestID
        )
        return SettingsDocument.tenant(tenant)
    }

    func get(_ request: PublicRequest) async throws -> JSONValue {
        SettingsDocument.tenant(try await current(request))
    }

    func list(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        var pageSize: Int?
        if let text = request.query["pageSize"], !text.isEmpty {
            guard let number = Int(text) else { throw IdentityToolkitError.invalidPayload("pageSize must be an integer") }
            // 0 asks for the default; more than 1000 is capped, as Google's list methods do.
            pageSize = number <= 0 ? nil : min(number, 1000)
        }
        let page = try await PeerCall.call(
            registry, ListTenants.self,
            .init(projectId: scope.projectId, pageSize: pageSize, pageToken: request.query["pageToken"].flatMap { $0.isEmpty ? nil : $0 }),
            requestID: request.requestID
        )
        var response: [String: JSONValue] = ["tenants": .array(page.tenants.map(SettingsDocument.tenant))]
        if let next = page.nextPageToken { response["nextPageToken"] = .string(next) }
        return .object(response)
    }

    /// Applies the mask to the stored tenant and stores the result with compare-and-set.
    func patch(_ request: PublicRequest) async throws -> JSONValue {
        let mask = try UpdateMask(request.query["updateMask"])
        for _ in 0..<5 {
            let tenant = try await current(request)
            let document = mask.isEmpty ? request.body : mask.apply(request.body, to: SettingsDocument.tenant(tenant))
            do {
                let updated = try await PeerCall.call(
                    registry, UpdateTenant.self,
                    .init(
                        projectId: tenant.projectId, tenantId: tenant.tenantId, displayName: document["displayName"]?.stringValue,
                        settings: try SettingsDocument.tenantSettings(document, previous: tenant.settings, mode: defaults),
                        expectedVersion: tenant.version
                    ),
                    requestID: request.requestID
                )
                return SettingsDocument.tenant(updated)
            } catch let error as RPCError where error.code == .settingsConflict {
                continue
            }
        }
        throw IdentityToolkitError.unavailable
    }

    func delete(_ request: PublicRequest) async throws -> JSONValue {
        let tenant = try await current(request)
        _ = try await PeerCall.call(
            registry, DeleteTenant.self, .init(projectId: tenant.projectId, tenantId: tenant.tenantId), requestID: request.requestID
        )
        return [:]
    }

    private func current(_ request: PublicRequest) async throws -> Tenant {
        let scope = try AdminScope(request)
        guard let tenantId = scope.tenantId else { throw IdentityToolkitError(.tenantNotFound) }
        return try await PeerCall.call(
            registry, GetTenant.self, .init(projectId: scope.projectId, tenantId: tenantId), requestID: request.requestID
        )
    }
}
