import ChallengeIssuerApp
import Contracts
import FactorRegistryApp
import ServiceKit
import ServiceTesting
import SessionTokenApp

/// The three data services in process, as `mfa-all-in-one` runs them, with the default project
/// provisioned and, for ``withRunning(project:configuration:_:)``, one tenant created through
/// factor-registry's `tenant.create`: the two scopes (the project's own schema, `tenantId` nil, and
/// the tenant's) that the statement suites run every behaviour in, so each also shows what one scope
/// wrote stays out of the other. A target of its own because only a target that links
/// factor-registry can create tenants, and the suites of every data service need them.
public enum TwoScopeServices {
    /// The three services with the default project only.
    public static func withServices(
        project: String, configuration: [String: String] = [:], _ body: @Sendable (InProcessServices) async throws -> Void
    ) async throws {
        try await InProcessServices.withRunning(
            [
                (.factorRegistry, FactorRegistryApp.build), (.challengeIssuer, ChallengeIssuerApp.build),
                (.sessionToken, SessionTokenApp.build),
            ],
            configuration: ["project.defaultId": project].merging(configuration) { _, new in new }
        ) { services in
            try await body(services)
        }
    }

    /// The three services with the default project and one of its tenants.
    public static func withRunning(
        project: String, configuration: [String: String] = [:],
        _ body: @Sendable (InProcessServices, _ tenantId: String) async throws -> Void
    ) async throws {
        try await withServices(project: project, configuration: configuration) { services in
            let tenant = try await services[.factorRegistry].call(CreateTenant.self, .init(projectId: project, displayName: "Scoped"))
            try await body(services, tenant.tenantId)
        }
    }

    /// The PostgreSQL schema of a scope, as every data service names it, for a test's own SQL.
    public static func schema(project: String, tenantId: String?) -> String {
        tenantId.map { "t_\($0)" } ?? "p_\(project)"
    }
}
