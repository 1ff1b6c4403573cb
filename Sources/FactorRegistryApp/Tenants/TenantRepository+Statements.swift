import AuthVocabulary
import Contracts
import Foundation
import TenantStore

/// The statements of ``TenantRepository``, each a type: its values, its text in a schema (always
/// ``TenantSchema/control``), its row.
extension TenantRepository {
    // MARK: Projects

    /// A project's state; no row: unknown.
    struct ReadProjectState: Statement {
        typealias Row = SingleValue<String>
        let projectId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT state FROM \(sql: schema.qualified(TenantRepository.projects)) WHERE project_id = \(projectId)"
        }
    }

    /// A project recorded (idempotent), `provisioning`, with an API key kept from an earlier record.
    struct InsertProject: Statement {
        static var isCached: Bool { false }
        let projectId: String
        let apiKey: String

        func query(in schema: TenantSchema) -> CachedQuery {
            let projects = schema.qualified(TenantRepository.projects)
            return """
                INSERT INTO \(sql: projects) (project_id, state, api_key) VALUES (\(projectId), 'provisioning', \(apiKey))
                ON CONFLICT (project_id) DO UPDATE SET api_key = coalesce(\(sql: projects).api_key, excluded.api_key)
                """
        }
    }

    /// The active project whose API key is `apiKey`; no row: none.
    struct ReadProjectByAPIKey: Statement {
        typealias Row = SingleValue<String>
        let apiKey: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT project_id FROM \(sql: schema.qualified(TenantRepository.projects)) WHERE api_key = \(apiKey) AND state = 'active'"
        }
    }

    /// A project's schemas exist everywhere.
    struct MarkProjectActive: Statement {
        static var isCached: Bool { false }
        let projectId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "UPDATE \(sql: schema.qualified(TenantRepository.projects)) SET state = 'active' WHERE project_id = \(projectId)"
        }
    }

    /// The projects in `state`.
    struct ReadProjectsInState: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let state: ScopeState

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT project_id FROM \(sql: schema.qualified(TenantRepository.projects)) WHERE state = \(state.rawValue)"
        }
    }

    /// Projects and tenants whose schemas every service has (a project's own scope has no tenant).
    struct ReadActiveScopes: Statement {
        typealias Row = ScopeRow
        static var isCached: Bool { false }

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT project_id, NULL::text AS tenant_id FROM \(sql: schema.qualified(TenantRepository.projects)) WHERE state = 'active'
            UNION ALL
            SELECT project_id, tenant_id FROM \(sql: schema.qualified(TenantRepository.tenants)) WHERE state = 'active'
            """
        }
    }

    struct ScopeRow: StatementRow {
        let scope: TenantScope

        init(_ columns: RowColumns) throws {
            scope = TenantScope(projectId: try columns("project_id"), tenantId: try columns("tenant_id"))
        }
    }

    /// A project's settings, their version and its API key; no row: unknown.
    struct ReadProjectConfig: Statement {
        typealias Row = ProjectRow
        let projectId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT settings::text AS settings, settings_version, api_key FROM \(sql: schema.qualified(TenantRepository.projects))
            WHERE project_id = \(projectId)
            """
        }
    }

    /// A project's settings, their version and its API key.
    struct ProjectRow: StatementRow {
        let settings: String?
        let version: Int64
        let apiKey: String?

        init(_ columns: RowColumns) throws {
            settings = try columns("settings")
            version = try columns("settings_version")
            apiKey = try columns("api_key")
        }
    }

    /// A project's settings as they are, the row locked until the transaction ends.
    struct LockProjectSettings: Statement {
        typealias Row = SingleValue<String?>
        static var isCached: Bool { false }
        let projectId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT settings::text FROM \(sql: schema.qualified(TenantRepository.projects)) WHERE project_id = \(projectId) FOR UPDATE"
        }
    }

    /// A project's settings replaced if still at `expectedVersion`; no row otherwise.
    struct UpdateProjectSettings: Statement {
        typealias Row = ProjectRow
        static var isCached: Bool { false }
        let projectId: String
        let settingsJSON: String
        let expectedVersion: Int64

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(TenantRepository.projects)) SET settings = \(settingsJSON)::jsonb, settings_version = settings_version + 1
            WHERE project_id = \(projectId) AND settings_version = \(expectedVersion)
            RETURNING NULL::text AS settings, settings_version, api_key
            """
        }
    }

    /// One row when the schema `name` exists (a project still provisioning has none).
    struct SchemaExists: Statement {
        typealias Row = SingleValue<Int32>
        static var isCached: Bool { false }
        let name: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT 1 FROM pg_namespace WHERE nspname = \(name)"
        }
    }

    // MARK: Tenants

    /// A tenant's columns as ``TenantRow`` reads them.
    static let tenantColumns: SQLText = """
        project_id, tenant_id, display_name, state,
        to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, settings::text AS settings,
        settings_version
        """

    /// A tenant's row as ``tenantColumns`` selects it.
    struct TenantRow: StatementRow {
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

    /// A tenant `provisioning`, or the one an earlier insert with the same idempotency key made.
    struct InsertTenant: Statement {
        typealias Row = TenantRow
        static var isCached: Bool { false }
        let tenantId: String
        let projectId: String
        let displayName: String?
        let idempotencyKey: String?
        let settingsJSON: String

        func query(in schema: TenantSchema) throws -> CachedQuery {
            let tenants = schema.qualified(TenantRepository.tenants)
            return try """
            INSERT INTO \(sql: tenants) (tenant_id, project_id, display_name, state, idempotency_key, settings)
            VALUES (\(tenantId), \(projectId), \(displayName), 'provisioning', \(idempotencyKey), \(settingsJSON)::jsonb)
            ON CONFLICT (project_id, idempotency_key) DO UPDATE SET updated_at = \(sql: tenants).updated_at
            RETURNING \(sql: TenantRepository.tenantColumns)
            """
        }
    }

    /// A project's tenant; no row: none.
    struct ReadTenant: Statement {
        typealias Row = TenantRow
        let projectId: String
        let tenantId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT \(sql: TenantRepository.tenantColumns) FROM \(sql: schema.qualified(TenantRepository.tenants))
            WHERE project_id = \(projectId) AND tenant_id = \(tenantId)
            """
        }
    }

    /// Active tenants of a project ordered by id, after `afterTenantId` ('' from the start).
    struct ReadActiveTenants: Statement {
        typealias Row = TenantRow
        static var isCached: Bool { false }
        let projectId: String
        let afterTenantId: String
        let limit: Int

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT \(sql: TenantRepository.tenantColumns) FROM \(sql: schema.qualified(TenantRepository.tenants))
            WHERE project_id = \(projectId) AND state = 'active' AND tenant_id > \(afterTenantId)
            ORDER BY tenant_id LIMIT \(limit)
            """
        }
    }

    /// Tenants still provisioning or being deleted, the oldest first.
    struct ReadUnfinishedTenants: Statement {
        typealias Row = TenantRow
        static var isCached: Bool { false }

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT \(sql: TenantRepository.tenantColumns) FROM \(sql: schema.qualified(TenantRepository.tenants))
            WHERE state <> 'active' ORDER BY created_at
            """
        }
    }

    /// A tenant moved from `from` to `to`; no row when it was not in `from`.
    struct TransitionTenant: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let tenantId: String
        let from: ScopeState
        let to: ScopeState

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(TenantRepository.tenants)) SET state = \(to.rawValue), updated_at = now()
            WHERE tenant_id = \(tenantId) AND state = \(from.rawValue) RETURNING tenant_id
            """
        }
    }

    /// A tenant's row, once it is being deleted.
    struct DeleteTenantRow: Statement {
        static var isCached: Bool { false }
        let tenantId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(TenantRepository.tenants)) WHERE tenant_id = \(tenantId) AND state = 'deleting'"
        }
    }

    /// A tenant's name and settings, locked until the transaction ends: what an update replaces.
    struct LockTenantSettings: Statement {
        typealias Row = LockedTenant
        static var isCached: Bool { false }
        let projectId: String
        let tenantId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT display_name, settings::text FROM \(sql: schema.qualified(TenantRepository.tenants))
            WHERE project_id = \(projectId) AND tenant_id = \(tenantId) FOR UPDATE
            """
        }
    }

    struct LockedTenant: StatementRow {
        let displayName: String?
        let settings: String?

        init(_ columns: RowColumns) throws {
            displayName = try columns("display_name")
            settings = try columns("settings")
        }
    }

    /// An active tenant's name and settings replaced if still at `expectedVersion`; no row otherwise.
    struct UpdateTenant: Statement {
        typealias Row = TenantRow
        static var isCached: Bool { false }
        let projectId: String
        let tenantId: String
        let displayName: String?
        let settingsJSON: String
        let expectedVersion: Int64

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            UPDATE \(sql: schema.qualified(TenantRepository.tenants)) SET display_name = \(displayName), settings = \(settingsJSON)::jsonb,
                settings_version = settings_version + 1, updated_at = now()
            WHERE project_id = \(projectId) AND tenant_id = \(tenantId) AND state = 'active'
              AND settings_version = \(expectedVersion)
            RETURNING \(sql: TenantRepository.tenantColumns)
            """
        }
    }
}
