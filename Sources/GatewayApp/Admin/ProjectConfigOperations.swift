import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `GET|PATCH /v2/projects/{p}/config` (and `/admin/v2/…`), contract §2.15 and decision 6.
struct ProjectConfigOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let defaults: ModeDefaults

    func get(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        let document = SettingsDocument.project(
            try await PeerCall.call(registry, GetProjectConfig.self, .init(projectId: scope.projectId), requestID: request.requestID),
            defaults: defaults
        )
        return try await Self.withHashConfig(document, registry: registry, projectId: scope.projectId, requestID: request.requestID)
    }

    /// `signIn.hashConfig` (output only, as in Identity Platform): the parameters with which the
    /// project's exported password hashes import into Firebase, Identity Platform or another project
    /// (`firebase auth:import --hash-algo=SCRYPT --hash-key=… --salt-separator=… --rounds=… --mem-cost=…`).
    static func withHashConfig(_ document: JSONValue, registry: PeerClient<FactorRegistryAPI>, projectId: String, requestID: String)
        async throws
        -> JSONValue
    {
        let export = try await PeerCall.call(
            registry, ExportPasswordHashes.self, .init(projectId: projectId, localIds: []), requestID: requestID
        )
        guard let config = export.hashConfig, case .object(var signIn)? = document["signIn"] else { return document }
        signIn["hashConfig"] = try JSONCoding.value(of: config)
        return document.setting("signIn", to: .object(signIn))
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
            // An empty mask replaces the whole config: whatever the body leaves out is reset. The
            // output-only `signIn.hashConfig` of a document read back is not a setting.
            let body = Self.withoutHashConfig(request.body)
            let document =
                mask.isEmpty
                ? body
                : mask.apply(
                    body, to: SettingsDocument.project(current, defaults: defaults)
                )
            let settings = try SettingsDocument.projectSettings(document, base: current.settings, defaults: defaults)
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

    static func withoutHashConfig(_ document: JSONValue) -> JSONValue {
        guard case .object(var signIn)? = document["signIn"], signIn["hashConfig"] != nil else { return document }
        signIn["hashConfig"] = nil
        return document.setting("signIn", to: .object(signIn))
    }
}
