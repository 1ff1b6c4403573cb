import ChallengeIssuerApp
import Contracts
import FactorRegistryApp
import ServiceKit
import ServiceTesting
import SessionTokenApp

/// The three data services in process, as `mfa-all-in-one` runs them, with the default project
/// provisioned and one tenant created through factor-registry's `tenant.create`: the two scopes
/// (the project's own schema, `tenantId` nil, and the tenant's) that the challenge-issuer and
/// session-token statement suites run every behaviour in, so each also shows what one scope wrote
/// stays out of the other. Here rather than in those services' own test targets because only this
/// target links factor-registry, which alone creates tenants.
enum TwoScopeServices {
    static func withRunning(
        project: String, configuration: [String: String] = [:],
        _ body: @Sendable (InProcessServices, _ tenantId: String) async throws -> Void
    ) async throws {
        try await InProcessServices.withRunning(
            [
                (.factorRegistry, FactorRegistryApp.build), (.challengeIssuer, ChallengeIssuerApp.build),
                (.sessionToken, SessionTokenApp.build),
            ],
            configuration: ["project.defaultId": project].merging(configuration) { _, new in new }
        ) { services in
            let tenant = try await services[.factorRegistry].call(CreateTenant.self, .init(projectId: project, displayName: "Scoped"))
            try await body(services, tenant.tenantId)
        }
    }

    /// The PostgreSQL schema of a scope, as every data service names it, for a test's own SQL.
    static func schema(project: String, tenantId: String?) -> String {
        tenantId.map { "t_\($0)" } ?? "p_\(project)"
    }
}
