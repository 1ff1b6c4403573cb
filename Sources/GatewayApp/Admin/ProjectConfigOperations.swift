import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `GET|PATCH /v2/projects/{p}/config` (and `/admin/v2/…`), contract §2.15 and decision 6.
struct ProjectConfigOperations: Sendable {
    let registry: RPCClient
    let defaults: ModeDefaults

    func get(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        return SettingsDocument.project(
            try await PeerCall.call(registry, GetProjectConfig.self, .init(projectId: scope.projectId), requestID: request.requestID),
            defaults: defaults
        )
    }

    /// Applies the mask to the stored config and stores the result if nobody changed it meanwhile
    /// (else reads again and re-applies: concurrent PATCHes of different fields both land).
    func update(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        let mask = try UpdateMask(request.query["updateMask"])
        for _ in 0..<5 {
            let current = try await PeerCall.call(
                registry, GetProjectConfig.self, .init(projectId: scope.projectId), requestID: request.requestID
            )
            // An empty mask replaces the whole config: whatever the body leaves out is reset.
            let document =
                mask.isEmpty
                ? request.body
                : mask.apply(
                    request.body, to: SettingsDocument.project(current, defaults: defaults)
                )
            let settings = try SettingsDocument.projectSettings(document, base: current.settings)
            do {
                let updated = try await PeerCall.call(
                    registry, UpdateProjectConfig.self,
                    .init(projectId: scope.projectId, settings: settings, expectedVersion: current.version),
                    requestID: request.requestID
                )
                return SettingsDocument.project(updated, defaults: defaults)
            } catch let error as RPCError where error.code == .settingsConflict {
                continue
            }
        }
        throw IdentityToolkitError.unavailable
    }
}
