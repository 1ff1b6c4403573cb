import Contracts
import Foundation
import JSONRPC
import ServiceKit
import ServiceTransport
import Testing

@Suite("A tenant never half exists", .serialized)
struct ReconcilerTests {
    static let dataServices: [ServiceName] = [.factorRegistry, .challengeIssuer, .sessionToken]

    static func eventually(timeout: TimeInterval = 20, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? await condition()) == true { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test("a tenant created while session-token is down stays invisible, then is completed once it is back")
    func provisioningCompletesAfterCrash() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.dataServices)
            let registry = try stack.client(to: .factorRegistry, as: "gateway")
            stack.process(.sessionToken).stop(crash: true)

            let params = CreateTenant.Params(projectId: "demo-project", displayName: "Late", idempotencyKey: "late-1")
            await #expect(throws: RPCError.self) { _ = try await registry.call(CreateTenant.self, params) }
            #expect(try await registry.call(ListTenants.self, .init(projectId: "demo-project")).tenants.isEmpty)

            try await stack.start([.sessionToken])
            let completed = try await Self.eventually {
                try await registry.call(ListTenants.self, .init(projectId: "demo-project")).tenants.count == 1
            }
            #expect(completed)
            let tenant = try await registry.call(CreateTenant.self, params)
            #expect(tenant.state == .active)
            #expect(try await stack.schemas(in: .sessionToken).contains("t_\(tenant.tenantId)"))
        }
    }

    @Test("a tenant deleted while challenge-issuer is down disappears at once and its schema is dropped once it is back")
    func deletionCompletesAfterCrash() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.dataServices)
            let registry = try stack.client(to: .factorRegistry, as: "gateway")
            let tenant = try await registry.call(CreateTenant.self, .init(projectId: "demo-project"))
            stack.process(.challengeIssuer).stop(crash: true)

            _ = try await registry.call(DeleteTenant.self, .init(projectId: "demo-project", tenantId: tenant.tenantId))
            await #expect(throws: RPCError.self) {
                _ = try await registry.call(GetTenant.self, .init(projectId: "demo-project", tenantId: tenant.tenantId))
            }
            #expect(try await stack.schemas(in: .challengeIssuer).contains("t_\(tenant.tenantId)"))

            try await stack.start([.challengeIssuer])
            // The reconciler drops the peers' schemas, then its own: wait for both.
            for service in Self.dataServices {
                #expect(
                    try await Self.eventually { !(try await stack.schemas(in: service).contains("t_\(tenant.tenantId)")) },
                    "\(service) still holds the deleted tenant's schema"
                )
            }
        }
    }
}
