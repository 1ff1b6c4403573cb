import AuthVocabulary
import Contracts
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// The tenant registry's rows in `control.projects` and `control.tenants`. Each statement is a
/// type (`TenantRepository+Statements.swift`).
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

    static let projects: SQLText = "projects"
    static let tenants: SQLText = "tenants"

    func projectState(_ projectId: String) async throws -> ScopeState? {
        if activeProjects.contains(projectId) { return .active }
        guard let state = try await client.first(ReadProjectState(projectId: projectId), in: .control, logger: logger)?.value
        else { return nil }
        let known = ScopeState(rawValue: state)
        if known == .active { activeProjects.insert(projectId) }
        return known
    }

    /// Records a project (idempotent); it stays `provisioning` until its schemas exist everywhere.
    func insertProject(_ projectId: String) async throws {
        try await client.run(InsertProject(projectId: projectId, apiKey: Self.makeAPIKey()), in: .control, logger: logger)
        cache.invalidate(projectId: projectId)
    }

    /// Google's shape: `AIza` and 35 URL-safe characters from the system CSPRNG.
    static func makeAPIKey() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        return "AIza" + String((0..<35).map { _ in alphabet.randomElement(using: &generator)! })
    }

    func project(forAPIKey key: String) async throws -> String? {
        try await client.first(ReadProjectByAPIKey(apiKey: key), in: .control, logger: logger)?.value
    }

    func markProjectActive(_ projectId: String) async throws {
        try await client.run(MarkProjectActive(projectId: projectId), in: .control, logger: logger)
        cache.invalidate(projectId: projectId)
    }

    func projects(in state: ScopeState) async throws -> [String] {
        try await client.run(ReadProjectsInState(state: state), in: .control, logger: logger).map(\.value)
    }

    /// Projects and tenants whose schemas every service has (a project's own scope has no tenant).
    func activeScopes() async throws -> [TenantScope] {
        try await client.run(ReadActiveScopes(), in: .control, logger: logger).map(\.scope)
    }

    /// Inserts a tenant in state `provisioning`, or returns the one an earlier call with the same
    /// idempotency key created.
    func insertTenant(projectId: String, displayName: String?, idempotencyKey: String?, settings: AuthSettings) async throws
        -> Tenant
    {
        let inserted = InsertTenant(
            tenantId: RandomIdentifier.make(), projectId: projectId, displayName: displayName, idempotencyKey: idempotencyKey,
            settingsJSON: try SettingsJSON.encode(settings))
        defer { cache.invalidate(projectId: projectId) }
        guard let row = try await client.first(inserted, in: .control, logger: logger) else {
            throw TenantRegistryError.storeInconsistent
        }
        return row.tenant
    }

    func tenant(projectId: String, tenantId: String) async throws -> Tenant? {
        let key = SettingsCache.Key.tenant(projectId: projectId, tenantId: tenantId)
        if case .tenant(let tenant) = cache.entry(key) { return tenant }
        let ticket = cache.ticket()
        guard
            let tenant = try await client.first(ReadTenant(projectId: projectId, tenantId: tenantId), in: .control, logger: logger)?.tenant
        else { return nil }
        cache.store(.tenant(tenant), for: key, ticket: ticket)
        return tenant
    }

    /// Active tenants of a project ordered by id, starting after `afterTenantId`.
    func activeTenants(projectId: String, afterTenantId: String?, limit: Int) async throws -> [Tenant] {
        try await client.run(
            ReadActiveTenants(projectId: projectId, afterTenantId: afterTenantId ?? "", limit: limit), in: .control, logger: logger
        ).map(\.tenant)
    }

    func unfinishedTenants() async throws -> [Tenant] {
        try await client.run(ReadUnfinishedTenants(), in: .control, logger: logger).map(\.tenant)
    }

    /// Moves a tenant from one state to another; `false` when it was not in `from`.
    func transition(tenantId: String, from: ScopeState, to: ScopeState) async throws -> Bool {
        defer { cache.invalidateAll() }
        return try await client.first(TransitionTenant(tenantId: tenantId, from: from, to: to), in: .control, logger: logger) != nil
    }

    func deleteTenantRow(tenantId: String) async throws {
        try await client.run(DeleteTenantRow(tenantId: tenantId), in: .control, logger: logger)
        cache.invalidateAll()
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
            let previous = try await connection.first(
                LockTenantSettings(projectId: projectId, tenantId: tenantId), in: .control, logger: logger)
            let update = UpdateTenant(
                projectId: projectId, tenantId: tenantId, displayName: displayName, settingsJSON: settingsJSON,
                expectedVersion: expectedVersion)
            guard let updated = try await connection.first(update, in: .control, logger: logger)?.tenant else { return nil }
            // A PATCH that changes nothing is no change to record (issue 58); a new name is one.
            var change = Self.change(from: previous?.settings, to: settings)
            let renamed = previous?.displayName != updated.displayName
            if renamed {
                change["displayNameBefore"] = previous?.displayName ?? ""
                change["displayNameAfter"] = updated.displayName ?? ""
            }
            if renamed || change["before"] != change["after"] {
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
        guard let row = try await client.first(ReadProjectConfig(projectId: projectId), in: .control, logger: logger) else {
            return nil
        }
        let config = ProjectConfig(
            projectId: projectId, settings: SettingsJSON.decode(row.settings) ?? projectDefaults, version: row.version, apiKey: row.apiKey
        )
        cache.store(.project(config), for: .project(projectId), ticket: ticket)
        return config
    }

    /// Replaces a project's settings if still at `expectedVersion`; `nil` otherwise.
    func updateProjectConfig(_ projectId: String, settings: AuthSettings, expectedVersion: Int64) async throws -> ProjectConfig? {
        let settingsJSON = try SettingsJSON.encode(settings)
        let (events, logger) = (self.events, self.logger)
        defer { cache.invalidate(projectId: projectId) }
        return try await client.withTransaction(logger: logger) { connection in
            let previous = try await connection.first(LockProjectSettings(projectId: projectId), in: .control, logger: logger)?.value
            let update = UpdateProjectSettings(projectId: projectId, settingsJSON: settingsJSON, expectedVersion: expectedVersion)
            guard let row = try await connection.first(update, in: .control, logger: logger) else { return nil }
            let updated = ProjectConfig(projectId: projectId, settings: settings, version: row.version, apiKey: row.apiKey)
            // A project still being provisioned has no schema yet, and no trail to write to.
            let schema = try ScopeSchema.of(projectId, nil)
            let change = Self.change(from: previous ?? nil, to: settings)
            if change["before"] != change["after"],
                try await connection.first(SchemaExists(name: schema.name), in: .control, logger: logger) != nil
            {
                try await events.record(.configChanged, localId: nil, details: change, in: schema, on: connection)
            }
            return updated
        }
    }
}
