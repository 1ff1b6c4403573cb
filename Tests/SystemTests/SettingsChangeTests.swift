import Contracts
import Foundation
import JSONRPC
import PostgresNIO
import ServiceKit
import ServiceTransport
import Testing

/// factor-registry keeps the settings it read; a change must still reach every instance at once.
@Suite("Settings changes reach every factor-registry instance", .serialized)
struct SettingsChangeTests {
    static let dataServices: [ServiceName] = [.factorRegistry, .challengeIssuer, .sessionToken]
    /// Well under the cache's five-second expiry: seeing a change this soon takes the notification.
    static let bound: Duration = .seconds(1)

    @Test("a change made through one instance, or by hand in the database, is seen by another within a second")
    func changesReachAnotherInstance() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.dataServices)
            let first = try stack.client(to: .factorRegistry, as: "gateway")
            let second = try await stack.startSecondInstance(of: .factorRegistry, as: "gateway")
            let scope = TenantScope(projectId: "demo-project")

            let config = try await first.call(GetProjectConfig.self, .init(projectId: "demo-project"))
            // Read twice by the second instance: the second answer comes from its cache.
            for _ in 0..<2 { #expect(try await second.call(ResolveSettings.self, scope).settings == config.settings) }

            var changed = config.settings
            changed.allowPasswordSignup.toggle()
            _ = try await first.call(
                UpdateProjectConfig.self, .init(projectId: "demo-project", settings: changed, expectedVersion: config.version)
            )
            #expect(try await first.call(ResolveSettings.self, scope).settings.allowPasswordSignup == changed.allowPasswordSignup)
            try await Self.eventually("the second instance sees the change made through the first") {
                try await second.call(ResolveSettings.self, scope).settings.allowPasswordSignup == changed.allowPasswordSignup
            }

            // By hand: back to the defaults, as an operator's psql session would.
            try await TestStack.admin(stack.postgresBaseURL, database: stack.databases[.factorRegistry]!) { client in
                _ = try await client.query(
                    "UPDATE control.projects SET settings = NULL, settings_version = settings_version + 1 WHERE project_id = 'demo-project'",
                    logger: TestStack.logger
                )
            } as Void
            for instance in [first, second] {
                try await Self.eventually("each instance sees the change made in the database") {
                    try await instance.call(ResolveSettings.self, scope).settings == AuthSettings.projectDefaults
                }
            }
        }
    }

    @Test("a tenant deleted through one instance is gone for another within a second")
    func tenantDeletionReachesAnotherInstance() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.dataServices)
            let first = try stack.client(to: .factorRegistry, as: "gateway")
            let second = try await stack.startSecondInstance(of: .factorRegistry, as: "gateway")
            let tenant = try await first.call(CreateTenant.self, .init(projectId: "demo-project", displayName: "Short-lived"))
            let scope = TenantScope(projectId: "demo-project", tenantId: tenant.tenantId)
            for _ in 0..<2 { _ = try await second.call(ResolveSettings.self, scope) }

            _ = try await first.call(DeleteTenant.self, .init(projectId: "demo-project", tenantId: tenant.tenantId))
            try await Self.eventually("the second instance refuses the deleted tenant") {
                do {
                    _ = try await second.call(ResolveSettings.self, scope)
                    return false
                } catch let error as RPCError {
                    return error.code == .tenantNotFound
                }
            }
        }
    }

    /// Polls `condition` until it holds, failing the test once ``bound`` has passed.
    static func eventually(_ what: Comment, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + bound
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("not within \(bound): \(what)")
    }
}
