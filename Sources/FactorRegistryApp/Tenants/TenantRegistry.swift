import Contracts
import JSONRPC
import Logging
import ServiceKit
import TenantStore

/// Owns the list of tenants and drives each one's schemas in every data service.
///
/// A tenant is visible only once `active`: creation inserts it as `provisioning`, provisions its
/// schema here and in challenge-issuer and session-token, then activates it. Deletion first hides
/// it (`deleting`), then drops the schemas, then forgets it. Each step is idempotent, so when a
/// service is down half-way the tenant reconciliation (`reconcile()`, every `reconcile.intervalMs`)
/// repeats the remaining steps until done: a tenant never half exists.
struct TenantRegistry: Sendable {
    let repository: TenantRepository
    let catalog: TenantSchemaCatalog
    /// The other data services, which keep their own schema per tenant.
    let challenges: PeerClient<ChallengeIssuerAPI>
    let sessions: PeerClient<SessionTokenAPI>
    let logger: Logger
    let defaultProjectId: String

    static let maximumDisplayNameLength = 256

    func create(_ params: CreateTenant.Params) async throws -> Tenant {
        guard TenantSchema.isValidProjectID(params.projectId),
            try await repository.projectState(params.projectId) == .active
        else { throw TenantRegistryError.projectNotFound }
        try Self.checkDisplayName(params.displayName)
        let settings = SettingsValidator.stampingMandatorySince(
            try SettingsValidator.canonical(params.settings ?? .tenantDefaults), previous: nil
        )
        if let key = params.idempotencyKey, key.isEmpty || key.utf8.count > 128 {
            throw TenantRegistryError.invalid("idempotencyKey must be 1 to 128 bytes")
        }
        var tenant = try await repository.insertTenant(
            projectId: params.projectId, displayName: params.displayName, idempotencyKey: params.idempotencyKey,
            settings: settings
        )
        switch tenant.state {
        case .active:
            return tenant
        case .provisioning:
            do {
                try await provision(TenantScope(projectId: tenant.projectId, tenantId: tenant.tenantId))
            } catch {
                logger.warning(
                    "tenant provisioning incomplete; reconciler will retry",
                    metadata: ["tenant.id": "\(tenant.tenantId)", "error": "\(error)"])
                throw TenantRegistryError.provisioningFailed
            }
            _ = try await repository.transition(tenantId: tenant.tenantId, from: .provisioning, to: .active)
            tenant.state = .active
            return tenant
        case .deleting:
            // The key belongs to a tenant being deleted: it cannot be handed out again.
            throw TenantRegistryError.invalid("idempotencyKey belongs to a deleted tenant")
        }
    }

    func get(_ params: GetTenant.Params) async throws -> Tenant {
        guard TenantSchema.isValidProjectID(params.projectId), TenantSchema.isValidTenantID(params.tenantId),
            let tenant = try await repository.tenant(projectId: params.projectId, tenantId: params.tenantId),
            tenant.state == .active
        else { throw TenantRegistryError.tenantNotFound }
        return tenant
    }

    func list(_ params: ListTenants.Params) async throws -> ListTenants.Result {
        guard TenantSchema.isValidProjectID(params.projectId),
            try await repository.projectState(params.projectId) == .active
        else { throw TenantRegistryError.projectNotFound }
        let pageSize = params.pageSize ?? 20
        guard (1...1000).contains(pageSize) else { throw TenantRegistryError.invalid("pageSize must be 1 to 1000") }
        if let token = params.pageToken, !TenantSchema.isValidTenantID(token) {
            throw TenantRegistryError.invalid("pageToken is not valid")
        }
        let tenants = try await repository.activeTenants(
            projectId: params.projectId, afterTenantId: params.pageToken, limit: pageSize
        )
        return .init(tenants: tenants, nextPageToken: tenants.count == pageSize ? tenants.last?.tenantId : nil)
    }

    func delete(_ params: DeleteTenant.Params) async throws {
        let tenant = try await get(params)
        guard try await repository.transition(tenantId: tenant.tenantId, from: .active, to: .deleting) else {
            throw TenantRegistryError.tenantNotFound
        }
        do {
            try await finishDeletion(TenantScope(projectId: tenant.projectId, tenantId: tenant.tenantId))
        } catch {
            // Already invisible; the reconciler finishes dropping the schemas.
            logger.warning(
                "tenant deletion incomplete; reconciler will retry", metadata: ["tenant.id": "\(tenant.tenantId)", "error": "\(error)"])
        }
    }

    /// 1 to 256 characters, none of them control characters (any other Unicode is fine: names are
    /// only ever bound as parameters).
    static func checkDisplayName(_ name: String?) throws {
        guard let name else { return }
        guard !name.isEmpty, name.count <= maximumDisplayNameLength,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw TenantRegistryError.invalid(
                "displayName must be 1 to \(maximumDisplayNameLength) characters, none of them control characters")
        }
    }

    func update(_ params: UpdateTenant.Params) async throws -> Tenant {
        let current = try await get(.init(projectId: params.projectId, tenantId: params.tenantId))
        try Self.checkDisplayName(params.displayName)
        let settings = SettingsValidator.stampingMandatorySince(
            try SettingsValidator.canonical(params.settings), previous: current.settings
        )
        if let updated = try await repository.updateTenant(
            projectId: params.projectId, tenantId: params.tenantId, displayName: params.displayName, settings: settings,
            expectedVersion: params.expectedVersion
        ) {
            return updated
        }
        // Gone in the meantime, or changed by someone else since the caller read it.
        _ = try await get(.init(projectId: params.projectId, tenantId: params.tenantId))
        throw TenantRegistryError.conflict
    }

    func projectConfig(_ projectId: String) async throws -> ProjectConfig {
        guard TenantSchema.isValidProjectID(projectId), try await repository.projectState(projectId) == .active,
            let config = try await repository.projectConfig(projectId)
        else { throw TenantRegistryError.projectNotFound }
        return config
    }

    func updateProjectConfig(_ params: UpdateProjectConfig.Params) async throws -> ProjectConfig {
        let current = try await projectConfig(params.projectId)
        let settings = SettingsValidator.stampingMandatorySince(
            try SettingsValidator.canonical(params.settings), previous: current.settings
        )
        guard
            let updated = try await repository.updateProjectConfig(
                params.projectId, settings: settings, expectedVersion: params.expectedVersion
            )
        else { throw TenantRegistryError.conflict }
        return updated
    }

    /// The settings a request runs under: the tenant's, or the project's when there is no tenant.
    func resolve(_ scope: TenantScope) async throws -> ResolveSettings.Result {
        if let tenantId = scope.tenantId {
            return .init(settings: try await get(.init(projectId: scope.projectId, tenantId: tenantId)).settings)
        }
        return .init(settings: try await projectConfig(scope.projectId).settings)
    }

    /// Records the project without provisioning it (the reconciler does that).
    func ensureProjectRecorded(_ projectId: String) async throws {
        try await repository.insertProject(projectId)
    }

    func isProjectActive(_ projectId: String) async throws -> Bool {
        try await repository.projectState(projectId) == .active
    }

    /// Records the project and provisions its project-level schemas everywhere (start-up, reconciler).
    func ensureProject(_ projectId: String) async throws {
        try await repository.insertProject(projectId)
        if try await repository.projectState(projectId) == .active { return }
        try await provision(TenantScope(projectId: projectId))
        try await repository.markProjectActive(projectId)
    }

    /// One pass over everything unfinished; returns how many items are still unfinished.
    @discardableResult
    func reconcile() async -> Int {
        var remaining = 0
        do {
            for projectId in try await repository.projects(in: .provisioning) {
                do {
                    try await ensureProject(projectId)
                } catch {
                    remaining += 1
                }
            }
            for tenant in try await repository.unfinishedTenants() {
                let scope = TenantScope(projectId: tenant.projectId, tenantId: tenant.tenantId)
                do {
                    if tenant.state == .provisioning {
                        try await provision(scope)
                        _ = try await repository.transition(tenantId: tenant.tenantId, from: .provisioning, to: .active)
                    } else {
                        try await finishDeletion(scope)
                    }
                } catch {
                    remaining += 1
                }
            }
        } catch {
            logger.warning("reconciler could not read the registry", metadata: ["error": "\(error)"])
            return -1
        }
        return remaining
    }

    /// Creates the scope's schema here and in every peer (concurrently; each call idempotent).
    private func provision(_ scope: TenantScope) async throws {
        _ = try await catalog.provision(scope)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await challenges.call(ProvisionTenantSchema.self, scope) }
            group.addTask { _ = try await sessions.call(ProvisionTenantSchema.self, scope) }
            try await group.waitForAll()
        }
    }

    /// Drops the scope's schema in every peer and here, then forgets the tenant.
    private func finishDeletion(_ scope: TenantScope) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await challenges.call(DropTenantSchema.self, scope) }
            group.addTask { _ = try await sessions.call(DropTenantSchema.self, scope) }
            try await group.waitForAll()
        }
        _ = try await catalog.drop(scope)
        if let tenantId = scope.tenantId {
            try await repository.deleteTenantRow(tenantId: tenantId)
        }
    }
}
