import AuthVocabulary
import Contracts
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// The tenant registry's rows in `control.projects` and `control.tenants`.
struct TenantRepository: Sendable {
    let client: Database
    let logger: Logger
    /// The audit trail: a settings change is recorded, before and after, in the scope's schema.
    let events: SecurityEventLog
    /// Shared by every repository of the process (see ``ActiveProjects``).
    let activeProjects: ActiveProjects
    /// Shared by every repository of the process; every write below drops what it changed.
    let cache: SettingsCache
    /// A project's settings until an operator sets them (AuthSettings: production's or development's).
    let projectDefaults: AuthSettings

    func projectState(_ projectId: String) async throws -> ScopeState? {
        if activeProjects.contains(projectId) { return .active }
        let rows = try await client.query(
            cached: "SELECT state FROM control.projects WHERE project_id = \(projectId)", logger: logger
        )
        for try await state in rows.decode(String.self) {
            let known = ScopeState(rawValue: state)
            if known == .active { activeProjects.insert(projectId) }
            return known
        }
        return nil
    }

    /// Records a project (idempotent); it stays `provisioning` until its schemas exist everywhere.
    func insertProject(_ projectId: String) async throws {
        try await client.query(
            """
            INSERT INTO control.projects (project_id, state, api_key) VALUES (\(projectId), 'provisioning', \(Self.makeAPIKey()))
            ON CONFLICT (project_id) DO UPDATE SET api_key = coalesce(control.projects.api_key, excluded.api_key)
            """,
            logger: logger
        )
        cache.invalidate(projectId: projectId)
    }

    /// Google's shape: `AIza` and 35 URL-safe characters from the system CSPRNG.
    static func makeAPIKey() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        return "AIza" + String((0..<35).map { _ in alphabet.randomElement(using: &generator)! })
    }

    func project(forAPIKey key: String) async throws -> String? {
        let rows = try await client.query(
            cached: "SELECT project_id FROM control.projects WHERE api_key = \(key) AND state = 'active'", logger: logger
        )
        for try await id in rows.decode(String.self) { return id }
        return nil
    }

    func markProjectActive(_ projectId: String) async throws {
        try await client.query(
            "UPDATE control.projects SET state = 'active' WHERE project_id = \(projectId)", logger: logger
        )
        cache.invalidate(projectId: projectId)
    }

    func projects(in state: ScopeState) async throws -> [String] {
        let rows = try await client.query(
            "SELECT project_id FROM control.projects WHERE state = \(state.rawValue)", logger: logger
        )
        var ids: [String] = []
        for try await id in rows.decode(String.self) { ids.append(id) }
        return ids
    }

    /// Projects and tenants whose schemas every service has (a project's own scope has no tenant).
    func activeScopes() async throws -> [TenantScope] {
        let rows = try await client.query(
            """
            SELECT project_id, NULL::text AS tenant_id FROM control.projects WHERE state = 'active'
            UNION ALL
            SELECT project_id, tenant_id FROM control.tenants WHERE state = 'active'
            """,
            logger: logger
        )
        var scopes: [TenantScope] = []
        for try await scope in rows.decode(rows: ScopeRow.self) { scopes.append(scope.scope) }
        return scopes
    }

    private struct ScopeRow: StatementRow {
        let scope: TenantScope

        init(_ columns: RowColumns) throws {
            scope = TenantScope(projectId: try columns("project_id"), tenantId: try columns("tenant_id"))
        }
    }

    /// Inserts a tenant in state `provisioning`, or returns the one an earlier call with the same
    /// idempotency key created.
    func insertTenant(projectId: String, displayName: String?, idempotencyKey: String?, settings: AuthSettings) async throws
        -> Tenant
    {
        let tenantId = RandomIdentifier.make()
        let settingsJSON = try SettingsJSON.encode(settings)
        let rows = try await client.query(
            """
            INSERT INTO control.tenants (tenant_id, project_id, display_name, state, idempotency_key, settings)
            VALUES (\(tenantId), \(projectId), \(displayName), 'provisioning', \(idempotencyKey), \(settingsJSON)::jsonb)
            ON CONFLICT (project_id, idempotency_key) DO UPDATE SET updated_at = control.tenants.updated_at
            RETURNING \(sql: Self.columns)
            """,
            logger: logger
        )
        defer { cache.invalidate(projectId: projectId) }
        for try await row in rows.decode(rows: Row.self) { return row.tenant }
        throw TenantRegistryError.storeInconsistent
    }

    func tenant(projectId: String, tenantId: String) async throws -> Tenant? {
        let key = SettingsCache.Key.tenant(projectId: projectId, tenantId: tenantId)
        if case .tenant(let tenant) = cache.entry(key) { return tenant }
        let ticket = cache.ticket()
        let rows = try await client.query(
            cached: """
                SELECT \(sql: Self.columns) FROM control.tenants
                WHERE project_id = \(projectId) AND tenant_id = \(tenantId)
                """,
            logger: logger
        )
        for try await row in rows.decode(rows: Row.self) {
            let tenant = row.tenant
            cache.store(.tenant(tenant), for: key, ticket: ticket)
            return tenant
        }
        return nil
    }

    /// Active tenants of a project ordered by id, starting after `afterTenantId`.
    func activeTenants(projectId: String, afterTenantId: String?, limit: Int) async throws -> [Tenant] {
        let rows = try await client.query(
            """
            SELECT \(sql: Self.columns) FROM control.tenants
            WHERE project_id = \(projectId) AND state = 'active' AND tenant_id > \(afterTenantId ?? "")
            ORDER BY tenant_id LIMIT \(limit)
            """,
            logger: logger
        )
        var tenants: [Tenant] = []
        for try await row in rows.decode(rows: Row.self) { tenants.append(row.tenant) }
        return tenants
    }

    func unfinishedTenants() async throws -> [Tenant] {
        let rows = try await client.query(
            "SELECT \(sql: Self.columns) FROM control.tenants WHERE state <> 'active' ORDER BY created_at",
            logger: logger
        )
        var tenants: [Tenant] = []
        for try await row in rows.decode(rows: Row.self) { tenants.append(row.tenant) }
        return tenants
    }

    /// Moves a tenant from one state to another; `false` when it was not in `from`.
    func transition(tenantId: String, from: ScopeState, to: ScopeState) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE control.tenants SET state = \(to.rawValue), updated_at = now()
            WHERE tenant_id = \(tenantId) AND state = \(from.rawValue) RETURNING tenant_id
            """,
            logger: logger
        )
        defer { cache.invalidateAll() }
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    func deleteTenantRow(tenantId: String) async throws {
        try await client.query(
            "DELETE FROM control.tenants WHERE tenant_id = \(tenantId) AND state = 'deleting'", logger: logger
        )
        cache.invalidateAll()
    }

    private static let columns: SQLText = """
        project_id, tenant_id, display_name, state,
        to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, settings::text AS settings,
        settings_version
        """

    /// A tenant's row as ``columns`` selects it.
    private struct Row: StatementRow {
        let tenant: Tenant

        init(_ columns: RowColumns) throws {
            let state: String = try columns("state")
            // The column's CHECK constraint allows only the three states.
            guard let known = ScopeState(rawValue: state) else { throw UnknownScopeState(value: String(state.prefix(32))) }
            tenant = Tenant(
                projectId: try columns("project_id"), tenantId: try columns("tenant_id"), displayName: try columns("display_name"),
                state: known, createdAt: try columns("created_at"),
                settings: SettingsJSON.decode(try columns("settings", as: String?.self)) ?? .tenantDefaults,
                version: try columns("settings_version")
            )
        }
    }

    /// A project's settings, their version and its API key.
    private struct ProjectRow: StatementRow {
        let settings: String?
        let version: Int64
        let apiKey: String?

        init(_ columns: RowColumns) throws {
            settings = try columns("settings")
            version = try columns("settings_version")
            apiKey = try columns("api_key")
        }
    }

    /// A state the schema's CHECK constraint does not allow: a database another version changed.
    struct UnknownScopeState: Error, CustomStringConvertible {
        let value: String
        var description: String { "control.tenants.state holds \(value), not a known state" }
    }

    /// Replaces an active tenant's name and settings if still at `expectedVersion`; `nil` when the
    /// version moved on (or the tenant is gone: the caller re-reads to tell which).
    func updateTenant(
        projectId: String, tenantId: String, displayName: String?, settings: AuthSettings, expectedVersion: Int64
    ) async throws -> Tenant? {
        let settingsJSON = try SettingsJSON.encode(settings)
        let (events, logger) = (self.events, self.logger)
        defer { cache.invalidate(projectId: projectId) }
        return try await client.withTransaction(logger: logger) { connection in
            let before = try await connection.query(
                "SELECT settings::text FROM control.tenants WHERE project_id = \(projectId) AND tenant_id = \(tenantId) FOR UPDATE",
                logger: logger
            )
            var previous: String?
            for try await text in before.decode(String?.self) { previous = text }
            let rows = try await connection.query(
                """
                UPDATE control.tenants SET display_name = \(displayName), settings = \(settingsJSON)::jsonb,
                    settings_version = settings_version + 1, updated_at = now()
                WHERE project_id = \(projectId) AND tenant_id = \(tenantId) AND state = 'active'
                  AND settings_version = \(expectedVersion)
                RETURNING \(sql: Self.columns)
                """,
                logger: logger
            )
            var updated: Tenant?
            for try await row in rows.decode(rows: Row.self) { updated = row.tenant }
            guard let updated else { return nil }
            // A PATCH that changes nothing is no change to record (issue 58).
            let change = Self.change(from: previous, to: settings)
            if change["before"] != change["after"] {
                try await events.record(
                    .configChanged, localId: nil, details: change, in: try ScopeSchema.of(projectId, tenantId), on: connection
                )
            }
            return updated
        }
    }

    /// `before` and `after` as the trail keeps them: test phone numbers' codes are not kept.
    static func change(from previous: String?, to settings: AuthSettings) -> [String: String] {
        func shown(_ settings: AuthSettings?) -> String {
            guard var settings else { return "null" }
            settings.testPhoneNumbers = settings.testPhoneNumbers.mapValues { _ in "••••••" }
            return (try? SettingsJSON.encode(settings)) ?? "null"
        }
        return ["before": shown(SettingsJSON.decode(previous)), "after": shown(settings)]
    }

    /// A project's settings and their version; `nil` for an unknown project.
    func projectConfig(_ projectId: String) async throws -> ProjectConfig? {
        if case .project(let config) = cache.entry(.project(projectId)) { return config }
        let ticket = cache.ticket()
        let rows = try await client.query(
            cached: """
                SELECT settings::text AS settings, settings_version, api_key FROM control.projects WHERE project_id = \(projectId)
                """,
            logger: logger
        )
        for try await row in rows.decode(rows: ProjectRow.self) {
            let config = ProjectConfig(
                projectId: projectId, settings: SettingsJSON.decode(row.settings) ?? projectDefaults, version: row.version,
                apiKey: row.apiKey
            )
            cache.store(.project(config), for: .project(projectId), ticket: ticket)
            return config
        }
        return nil
    }

    /// Replaces a project's settings if still at `expectedVersion`; `nil` otherwise.
    func updateProjectConfig(_ projectId: String, settings: AuthSettings, expectedVersion: Int64) async throws -> ProjectConfig? {
        let settingsJSON = try SettingsJSON.encode(settings)
        let (events, logger) = (self.events, self.logger)
        defer { cache.invalidate(projectId: projectId) }
        return try await client.withTransaction(logger: logger) { connection in
            let before = try await connection.query(
                "SELECT settings::text FROM control.projects WHERE project_id = \(projectId) FOR UPDATE", logger: logger
            )
            var previous: String?
            for try await text in before.decode(String?.self) { previous = text }
            let rows = try await connection.query(
                """
                UPDATE control.projects SET settings = \(settingsJSON)::jsonb, settings_version = settings_version + 1
                WHERE project_id = \(projectId) AND settings_version = \(expectedVersion)
                RETURNING NULL::text AS settings, settings_version, api_key
                """,
                logger: logger
            )
            var updated: ProjectConfig?
            for try await row in rows.decode(rows: ProjectRow.self) {
                updated = ProjectConfig(projectId: projectId, settings: settings, version: row.version, apiKey: row.apiKey)
            }
            guard let updated else { return nil }
            // A project still being provisioned has no schema yet, and no trail to write to.
            let schema = try ScopeSchema.of(projectId, nil)
            let exists = try await connection.query("SELECT 1 FROM pg_namespace WHERE nspname = \(schema.name)", logger: logger)
            let change = Self.change(from: previous, to: settings)
            for try await _ in exists.decode(Int.self) where change["before"] != change["after"] {
                try await events.record(.configChanged, localId: nil, details: change, in: schema, on: connection)
            }
            return updated
        }
    }
}
