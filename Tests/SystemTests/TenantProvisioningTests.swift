import Contracts
import Foundation
import JSONRPC
import ServiceKit
import ServiceTransport
import Testing

@Suite("Tenant schemas across the data services", .serialized)
struct TenantProvisioningTests {
    static let dataServices: [ServiceName] = [.factorRegistry, .challengeIssuer, .sessionToken]

    @Test("creating tenants provisions a schema in every data service; deleting one drops its schemas everywhere and leaves the other")
    func provisionAndDelete() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.dataServices + [.gateway])
            let registry = try stack.client(to: .factorRegistry, as: "gateway")

            let first = try await registry.call(CreateTenant.self, .init(projectId: "demo-project", displayName: "First"))
            let second = try await registry.call(CreateTenant.self, .init(projectId: "demo-project", displayName: "Second"))
            #expect(first.state == .active)
            for service in Self.dataServices {
                let schemas = try await stack.schemas(in: service)
                #expect(schemas.isSuperset(of: ["p_demo-project", "t_\(first.tenantId)", "t_\(second.tenantId)"]), "\(service)")
            }
            let listed = try await registry.call(ListTenants.self, .init(projectId: "demo-project"))
            #expect(Set(listed.tenants.map(\.tenantId)) == [first.tenantId, second.tenantId])

            _ = try await registry.call(DeleteTenant.self, .init(projectId: "demo-project", tenantId: first.tenantId))
            for service in Self.dataServices {
                let schemas = try await stack.schemas(in: service)
                #expect(!schemas.contains("t_\(first.tenantId)"), "\(service) still has the deleted tenant")
                #expect(schemas.contains("t_\(second.tenantId)"), "\(service) lost the other tenant")
            }
            await #expect(throws: RPCError(code: .tenantNotFound, identityToolkitError: "TENANT_NOT_FOUND")) {
                _ = try await registry.call(GetTenant.self, .init(projectId: "demo-project", tenantId: first.tenantId))
            }
            #expect(try await registry.call(GetTenant.self, .init(projectId: "demo-project", tenantId: second.tenantId)) == second)
        }
    }

    @Test("a retried create with the same idempotency key returns the same tenant")
    func idempotentCreate() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.dataServices)
            let registry = try stack.client(to: .factorRegistry, as: "gateway")
            let params = CreateTenant.Params(projectId: "demo-project", displayName: "Once", idempotencyKey: "create-42")
            let first = try await registry.call(CreateTenant.self, params)
            let again = try await registry.call(CreateTenant.self, params)
            #expect(first == again)
            #expect(try await registry.call(ListTenants.self, .init(projectId: "demo-project")).tenants.count == 1)
        }
    }

    @Test("unknown projects and hostile ids get errors, never SQL")
    func hostileRegistryInput() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.dataServices)
            let registry = try stack.client(to: .factorRegistry, as: "gateway")
            await #expect(throws: RPCError(code: .projectNotFound, identityToolkitError: "CONFIGURATION_NOT_FOUND")) {
                _ = try await registry.call(CreateTenant.self, .init(projectId: "no-such-project"))
            }
            for hostile in ["x'; DROP TABLE control.tenants; --", String(repeating: "é", count: 5000), "t\u{0}x"] {
                await #expect(throws: RPCError(code: .tenantNotFound, identityToolkitError: "TENANT_NOT_FOUND")) {
                    _ = try await registry.call(GetTenant.self, .init(projectId: "demo-project", tenantId: hostile))
                }
                await #expect(throws: RPCError.self) {
                    _ = try await registry.call(
                        CreateTenant.self, .init(projectId: "demo-project", displayName: String(repeating: "x", count: 10_000)))
                }
            }
            // The registry still works.
            _ = try await registry.call(CreateTenant.self, .init(projectId: "demo-project"))
        }
    }

    @Test("restarting a service re-runs migrations as a no-op and keeps every schema")
    func restartIsNoOp() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.dataServices)
            let registry = try stack.client(to: .factorRegistry, as: "gateway")
            let tenant = try await registry.call(CreateTenant.self, .init(projectId: "demo-project"))
            let before = try await stack.schemas(in: .challengeIssuer)
            func applications() -> Int {
                stack.process(.challengeIssuer).logTail(400).components(separatedBy: "migration applied").count - 1
            }
            let firstStart = applications()
            #expect(firstStart > 0)
            stack.process(.challengeIssuer).stop()
            try await stack.start([.challengeIssuer])
            #expect(try await stack.schemas(in: .challengeIssuer) == before)
            #expect(applications() == firstStart, "the restart applied migrations again")
            #expect(before.contains("t_\(tenant.tenantId)"))
        }
    }
}
