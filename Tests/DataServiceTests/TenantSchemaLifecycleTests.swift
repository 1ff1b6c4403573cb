import Contracts
import DataServiceTesting
import Foundation
import JSONRPC
import ServiceKit
import ServiceTesting
import ServiceTransport
import Testing

extension DataServiceStatements {
    /// The methods every data service serves the same way (`service.status`, `tenantSchema.drop`),
    /// through challenge-issuer's and session-token's method tables against their own PostgreSQL: the
    /// status counts the scopes' schemas, and a dropped scope takes its data with it and answers
    /// `TENANT_NOT_FOUND` from then on, while the other scope carries on.
    @Suite("Tenant schema lifecycle (challenge-issuer and session-token, in-process, PostgreSQL, two scopes)")
    struct TenantSchemaLifecycleTests {
        static let project = "schema-lifecycle"

        /// A call that needs the scope's schema in challenge-issuer; its refusal, or `nil`.
        static func issuerCall(_ issuer: ServiceUnderTest, scope: String?) async throws -> String? {
            try await issuer.refusal {
                _ = try await issuer.call(
                    GenerateRecoveryCodes.self, .init(projectId: project, tenantId: scope, localId: "alice", mfaEnrollmentId: "recovery-1"))
            }
        }

        /// The same in session-token.
        static func sessionsCall(_ sessions: ServiceUnderTest, scope: String?) async throws -> String? {
            try await sessions.refusal {
                _ = try await sessions.call(
                    IssuePendingCredential.self, .init(projectId: project, tenantId: scope, localId: "alice", signInProvider: .password))
            }
        }

        @Test("every data service reports itself, its database and its two scopes' schemas to any peer")
        func status() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, _ in
                for service in [ServiceName.factorRegistry, .challengeIssuer, .sessionToken] {
                    let status = try await services[service].call(GetServiceStatus.self, RPCEmpty(), as: .sessionToken)
                    #expect(status.service == service.rawValue && !status.version.isEmpty && status.uptimeSeconds >= 0)
                    #expect(status.database?.ready == true)
                    #expect(status.tenantSchemas == 2, "\(service.rawValue)")
                }
            }
        }

        @Test("a dropped scope's schema goes with its data, answers TENANT_NOT_FOUND, and leaves the other scope working")
        func dropped() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let (issuer, sessions) = (services[.challengeIssuer], services[.sessionToken])
                for scope in [nil, tenantId] {
                    #expect(try await Self.issuerCall(issuer, scope: scope) == nil)
                    #expect(try await Self.sessionsCall(sessions, scope: scope) == nil)
                }
                // The tenant first, then the project's own schema: each time the other scope is still there.
                for scope in [tenantId, nil] {
                    let other = scope == nil ? tenantId : nil
                    let name = TwoScopeServices.schema(project: Self.project, tenantId: scope)
                    for service in [issuer, sessions] {
                        let before = try await service.call(GetServiceStatus.self, RPCEmpty()).tenantSchemas ?? 0
                        let drop = TenantScope(projectId: Self.project, tenantId: scope)
                        // Only factor-registry, which owns tenants, drops their schemas.
                        #expect(
                            try await service.refusal { _ = try await service.call(DropTenantSchema.self, drop) } == "Caller not allowed")
                        #expect(
                            try await service.call(DropTenantSchema.self, drop, as: .factorRegistry) == .init(schema: name, dropped: true))
                        #expect(
                            try await service.call(DropTenantSchema.self, drop, as: .factorRegistry) == .init(schema: name, dropped: false))
                        #expect(try await service.call(GetServiceStatus.self, RPCEmpty()).tenantSchemas == before - 1)
                        let left: [Int64] = try await service.rows(
                            "SELECT count(*) FROM pg_namespace WHERE nspname = '\(name)'", as: Int64.self)
                        #expect(left == [0])
                    }
                    #expect(try await Self.issuerCall(issuer, scope: scope) == "TENANT_NOT_FOUND")
                    #expect(try await Self.sessionsCall(sessions, scope: scope) == "TENANT_NOT_FOUND")
                    if scope != nil {
                        #expect(try await Self.issuerCall(issuer, scope: other) == nil)
                        #expect(try await Self.sessionsCall(sessions, scope: other) == nil)
                    }
                }
            }
        }
    }

}
