import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `GET|PATCH /v2/projects/{p}[/tenants/{t}]/passkeyConfig` (issue 59; Identity Platform's preview
/// resource, as firebase-admin-node's `passkeys` branch calls it): `{name, rpId, expectedOrigins}`,
/// patched by `updateMask` (`rpId`, `expectedOrigins`; all of the body without one). A scope's own
/// setting: a tenant never takes its project's. factor-registry validates it (SettingsValidator).
struct PasskeyConfigOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>

    static func document(_ config: PasskeyConfig?, scope: AdminScope) -> JSONValue {
        let name = "projects/\(scope.projectId)" + (scope.tenantId.map { "/tenants/\($0)" } ?? "") + "/passkeyConfig"
        var members: [String: JSONValue] = ["name": .string(name)]
        if let config {
            members["rpId"] = .string(config.rpId)
            members["expectedOrigins"] = .array(config.expectedOrigins.map(JSONValue.string))
        }
        return .object(members)
    }

    func get(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        return Self.document(try await stored(scope, request).settings.passkeyConfig, scope: scope)
    }

    func patch(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        let mask = try UpdateMask(request.query["updateMask"])
        for _ in 0..<5 {
            let current = try await stored(scope, request)
            let document =
                mask.isEmpty ? request.body : mask.apply(request.body, to: Self.document(current.settings.passkeyConfig, scope: scope))
            var settings = current.settings
            settings.passkeyConfig = try Self.config(document)
            do {
                let updated: AuthSettings
                if let tenantId = scope.tenantId {
                    updated = try await PeerCall.call(
                        registry, UpdateTenant.self,
                        .init(
                            projectId: scope.projectId, tenantId: tenantId, displayName: current.displayName, settings: settings,
                            expectedVersion: current.version
                        ),
                        requestID: request.requestID
                    ).settings
                } else {
                    updated = try await PeerCall.call(
                        registry, UpdateProjectConfig.self,
                        .init(projectId: scope.projectId, settings: settings, expectedVersion: current.version),
                        requestID: request.requestID
                    ).settings
                }
                return Self.document(updated.passkeyConfig, scope: scope)
            } catch let error as RPCError where error.code == .settingsConflict {
                continue
            }
        }
        throw IdentityToolkitError.unavailable
    }

    /// Both members or neither (passkeys off).
    static func config(_ document: JSONValue) throws -> PasskeyConfig? {
        let rpId = document["rpId"]?.stringValue
        let origins: [String]?
        if case .array(let values)? = document["expectedOrigins"] {
            origins = try values.map { value in
                guard let origin = value.stringValue, !origin.isEmpty else {
                    throw IdentityToolkitError(.invalidConfig, detail: "expectedOrigins must be non-empty strings")
                }
                return origin
            }
        } else {
            origins = nil
        }
        switch (rpId, origins) {
        case (nil, nil), (nil, []?): return nil
        case (let rpId?, let origins?) where !origins.isEmpty: return PasskeyConfig(rpId: rpId, expectedOrigins: origins)
        default: throw IdentityToolkitError(.invalidConfig, detail: "passkeyConfig needs both rpId and expectedOrigins")
        }
    }

    private func stored(_ scope: AdminScope, _ request: PublicRequest) async throws -> (
        settings: AuthSettings, version: Int64, displayName: String?
    ) {
        if let tenantId = scope.tenantId {
            let tenant = try await PeerCall.call(
                registry, GetTenant.self, .init(projectId: scope.projectId, tenantId: tenantId), requestID: request.requestID
            )
            return (tenant.settings, tenant.version, tenant.displayName)
        }
        let config = try await PeerCall.call(
            registry, GetProjectConfig.self, .init(projectId: scope.projectId), requestID: request.requestID)
        return (config.settings, config.version, nil)
    }
}
