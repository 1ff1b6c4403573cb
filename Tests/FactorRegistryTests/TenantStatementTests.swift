import AuthVocabulary
import Contracts
import DataServiceTesting
import Foundation
import JSONRPC
import ServiceKit
import ServiceTesting
import Testing

extension RegistryStatements {
    /// factor-registry's tenant-update and API-key statements against its own PostgreSQL, through its
    /// method table: a tenant's name and settings change only at the version the caller read, in that
    /// tenant alone (the project's settings and another tenant's stay, the change is audited in the
    /// tenant's trail only), and an API key names its project, whatever tenant the caller then picks.
    @Suite("Tenant statements (factor-registry, in-process, PostgreSQL)")
    struct TenantStatementTests {
        static let project = "demo-project"

        static func withRegistry(_ body: @Sendable (ServiceUnderTest) async throws -> Void) async throws {
            try await TwoScopeServices.withServices(project: project) { services in
                try await body(services[.factorRegistry])
            }
        }

        /// The JSON-RPC code of the error `work` throws; `nil` when it succeeds.
        static func errorCode(_ work: () async throws -> Void) async throws -> RPCErrorCode? {
            do {
                try await work()
                return nil
            } catch let error as RPCError {
                return error.code
            }
        }

        static func changes(_ registry: ServiceUnderTest, in scope: String?) async throws -> Int {
            try await registry.call(
                ListSecurityEvents.self, .init(projectId: project, tenantId: scope, types: ["config.changed"], limit: 10)
            ).events.count
        }

        @Test("a tenant's update replaces its name and settings at the version read, in that tenant alone; a stale version changes nothing")
        func update() async throws {
            try await Self.withRegistry { registry in
                let tenant = try await registry.call(CreateTenant.self, .init(projectId: Self.project, displayName: "Shop"))
                let neighbour = try await registry.call(CreateTenant.self, .init(projectId: Self.project, displayName: "Neighbour"))
                let projectBefore = try await registry.call(GetProjectConfig.self, .init(projectId: Self.project))
                var settings = tenant.settings
                settings.allowPasswordSignup = true
                settings.enableEmailLinkSignin = true
                let update = { (name: String?, settings: AuthSettings, version: Int64, tenantId: String) in
                    try await registry.call(
                        UpdateTenant.self,
                        .init(projectId: Self.project, tenantId: tenantId, displayName: name, settings: settings, expectedVersion: version))
                }
                let updated = try await update("Shop (EU)", settings, tenant.version, tenant.tenantId)
                #expect(updated.displayName == "Shop (EU)" && updated.version == tenant.version + 1 && updated.state == .active)
                #expect(updated.settings.allowPasswordSignup && updated.settings.enableEmailLinkSignin)
                let read = try await registry.call(GetTenant.self, .init(projectId: Self.project, tenantId: tenant.tenantId))
                #expect(read == updated)
                let resolved = try await registry.call(ResolveSettings.self, .init(projectId: Self.project, tenantId: tenant.tenantId))
                #expect(resolved.settings == updated.settings)

                // Someone who read the first version loses: error 1004, and the tenant keeps the winner's change.
                var late = tenant.settings
                late.enableAnonymousUser = true
                #expect(
                    try await Self.errorCode { _ = try await update("Late", late, tenant.version, tenant.tenantId) } == .settingsConflict)
                #expect(try await registry.call(GetTenant.self, .init(projectId: Self.project, tenantId: tenant.tenantId)) == updated)

                // Neither the project nor the other tenant moved, and only the tenant's trail has the change.
                #expect(try await registry.call(GetProjectConfig.self, .init(projectId: Self.project)) == projectBefore)
                let other = try await registry.call(GetTenant.self, .init(projectId: Self.project, tenantId: neighbour.tenantId))
                #expect(other == neighbour)
                #expect(try await Self.changes(registry, in: tenant.tenantId) == 1)
                #expect(try await Self.changes(registry, in: neighbour.tenantId) == 0)
                #expect(try await Self.changes(registry, in: nil) == 0)

                let badName = try await registry.refusal { _ = try await update("Shop\n", settings, updated.version, tenant.tenantId) }
                #expect(badName == "INVALID_ARGUMENT : displayName must be 1 to 256 characters, none of them control characters")
                var invalid = settings
                invalid.mfaConfig.state = MultiFactorState(rawValue: "SOMETIMES")
                let badSettings = try await registry.refusal { _ = try await update(nil, invalid, updated.version, tenant.tenantId) }
                #expect(badSettings == "INVALID_CONFIG : mfa state must be DISABLED, ENABLED or MANDATORY")
                #expect(try await registry.call(GetTenant.self, .init(projectId: Self.project, tenantId: tenant.tenantId)) == updated)
                let unknown = try await registry.refusal { _ = try await update("Ghost", settings, 0, "unknown-tenant") }
                #expect(unknown == "TENANT_NOT_FOUND")
                // A deleted tenant cannot be updated back into being.
                _ = try await registry.call(DeleteTenant.self, .init(projectId: Self.project, tenantId: neighbour.tenantId))
                let deleted = try await registry.refusal { _ = try await update("Back", settings, neighbour.version, neighbour.tenantId) }
                #expect(deleted == "TENANT_NOT_FOUND")
                let refused = try await registry.refusal {
                    _ = try await registry.call(
                        UpdateTenant.self,
                        .init(
                            projectId: Self.project, tenantId: tenant.tenantId, displayName: nil, settings: settings,
                            expectedVersion: updated.version),
                        as: .sessionToken)
                }
                #expect(refused == "Caller not allowed")

                // A new name alone is a change too, recorded with both names; the same name again is none.
                let renamed = try await update("Shop (Europe)", updated.settings, updated.version, tenant.tenantId)
                let events = try await registry.call(
                    ListSecurityEvents.self, .init(projectId: Self.project, tenantId: tenant.tenantId, types: ["config.changed"], limit: 10)
                ).events
                #expect(events.count == 2)
                let rename = try #require(events.first { $0.details["displayNameAfter"] != nil })
                #expect(rename.details["displayNameBefore"] == "Shop (EU)" && rename.details["displayNameAfter"] == "Shop (Europe)")
                #expect(rename.details["before"] == rename.details["after"])
                _ = try await update("Shop (Europe)", renamed.settings, renamed.version, tenant.tenantId)
                #expect(try await Self.changes(registry, in: tenant.tenantId) == 2)
            }
        }

        @Test("the project's settings change only at the version read, audited in its own trail; its tenants are listed a page at a time")
        func projectSettingsAndTenantList() async throws {
            try await Self.withRegistry { registry in
                let before = try await registry.call(GetProjectConfig.self, .init(projectId: Self.project))
                var settings = before.settings
                settings.enableAnonymousUser = !settings.enableAnonymousUser
                let updated = try await registry.call(
                    UpdateProjectConfig.self, .init(projectId: Self.project, settings: settings, expectedVersion: before.version))
                #expect(updated.version == before.version + 1 && updated.settings.enableAnonymousUser == settings.enableAnonymousUser)
                #expect(try await registry.call(GetProjectConfig.self, .init(projectId: Self.project)) == updated)
                #expect(try await Self.changes(registry, in: nil) == 1)
                // A stale version loses and changes nothing; the same settings again record nothing.
                #expect(
                    try await Self.errorCode {
                        _ = try await registry.call(
                            UpdateProjectConfig.self,
                            .init(projectId: Self.project, settings: before.settings, expectedVersion: before.version))
                    } == .settingsConflict)
                _ = try await registry.call(
                    UpdateProjectConfig.self, .init(projectId: Self.project, settings: settings, expectedVersion: updated.version))
                #expect(try await Self.changes(registry, in: nil) == 1)

                var created: [String] = []
                for name in ["One", "Two", "Three"] {
                    created.append(try await registry.call(CreateTenant.self, .init(projectId: Self.project, displayName: name)).tenantId)
                }
                let first = try await registry.call(ListTenants.self, .init(projectId: Self.project, pageSize: 2))
                let token = try #require(first.nextPageToken)
                let rest = try await registry.call(ListTenants.self, .init(projectId: Self.project, pageSize: 2, pageToken: token))
                let listed = (first.tenants + rest.tenants).map(\.tenantId)
                #expect(first.tenants.count == 2 && listed == created.sorted() && rest.nextPageToken == nil)
            }
        }

        @Test("an API key names its project, tenants or not; another key, a longer one or another caller is refused")
        func resolveAPIKey() async throws {
            try await Self.withRegistry { registry in
                let key = try #require(try await registry.call(GetProjectConfig.self, .init(projectId: Self.project)).apiKey)
                let resolve = { (apiKey: String) in
                    try await registry.call(ResolveAPIKey.self, .init(apiKey: apiKey))
                }
                #expect(try await resolve(key).projectId == Self.project)
                // A tenant is chosen by the request, not the key: creating and updating one leaves the key the project's.
                let tenant = try await registry.call(CreateTenant.self, .init(projectId: Self.project, displayName: "Keyed"))
                var settings = tenant.settings
                settings.allowPasswordSignup = true
                _ = try await registry.call(
                    UpdateTenant.self,
                    .init(
                        projectId: Self.project, tenantId: tenant.tenantId, displayName: nil, settings: settings,
                        expectedVersion: tenant.version))
                #expect(try await resolve(key).projectId == Self.project)
                #expect(try await registry.call(GetProjectConfig.self, .init(projectId: Self.project)).apiKey == key)
                for wrong in [
                    key.lowercased() == key ? key.uppercased() : key.lowercased(), key + "x", String(key.dropLast()), "",
                    key + String(repeating: "a", count: 200),
                ] {
                    #expect(try await Self.errorCode { _ = try await resolve(wrong) } == .unknownAPIKey)
                }
                let refused = try await registry.refusal {
                    _ = try await registry.call(ResolveAPIKey.self, .init(apiKey: key), as: .challengeIssuer)
                }
                #expect(refused == "Caller not allowed")
            }
        }
    }

}
