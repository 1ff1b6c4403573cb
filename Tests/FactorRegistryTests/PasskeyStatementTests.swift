import Contracts
import DataServiceTesting
import Foundation
import ServiceKit
import ServiceTesting
import Testing

/// factor-registry's passkey statements (issue 59) against its own PostgreSQL, through its method
/// table, run in two scopes (the project and one of its tenants): what one scope stores the other
/// never sees, credential ids are unique per scope, the per-account limit holds under racing
/// enrollments, counters move only from the value a sign-in was checked against, and a passkey goes
/// with its account.
@Suite("Passkey statements (factor-registry, in-process, PostgreSQL)")
struct PasskeyStatementTests {
    static let project = "demo-project"

    static func withRegistry(_ body: @Sendable (ServiceUnderTest, _ tenantId: String) async throws -> Void) async throws {
        try await TwoScopeServices.withRunning(project: project) { services, tenantId in
            try await body(services[.factorRegistry], tenantId)
        }
    }

    static func credential(_ seed: UInt8, name: String = "Phone") -> PasskeyCredential {
        PasskeyCredential(
            credentialId: Base64URL.encode([UInt8](repeating: seed, count: 16)), publicKey: Base64URL.encode([0xa5, seed]), algorithm: -7,
            signCount: 0, name: name, backupEligible: true, backedUp: true
        )
    }

    static func account(_ registry: ServiceUnderTest, tenantId: String?) async throws -> String {
        try await registry.call(CreateAccount.self, .init(projectId: project, tenantId: tenantId)).localId
    }

    static func add(
        _ registry: ServiceUnderTest, _ credential: PasskeyCredential, to localId: String, tenantId: String?, maximum: Int = 10
    ) async throws -> String? {
        try await registry.refusal {
            _ = try await registry.call(
                AddPasskey.self,
                .init(projectId: project, tenantId: tenantId, localId: localId, credential: credential, maximumPerAccount: maximum)
            )
        }
    }

    @Test("each scope keeps its own passkeys: found, listed and removed only there, audited")
    func scopes() async throws {
        try await Self.withRegistry { registry, tenantId in
            for scope in [nil, tenantId] {
                let other = scope == nil ? tenantId : nil
                let alice = try await Self.account(registry, tenantId: scope)
                let phone = Self.credential(1)
                #expect(try await Self.add(registry, phone, to: alice, tenantId: scope) == nil)
                let found = try await registry.call(
                    FindPasskey.self, .init(projectId: Self.project, tenantId: scope, credentialId: phone.credentialId))
                #expect(found.localId == alice && found.credential == phone)
                let elsewhere = try await registry.refusal {
                    _ = try await registry.call(
                        FindPasskey.self, .init(projectId: Self.project, tenantId: other, credentialId: phone.credentialId))
                }
                #expect(elsewhere == "PASSKEY_ENROLLMENT_NOT_FOUND")
                let listed = try await registry.call(ListPasskeys.self, .init(projectId: Self.project, tenantId: scope, localIds: [alice]))
                #expect(listed.passkeys == [PasskeyEntry(localId: alice, credentialId: phone.credentialId, name: "Phone")])
                let removed = try await registry.call(
                    RemovePasskeys.self,
                    .init(projectId: Self.project, tenantId: scope, localId: alice, credentialIds: [phone.credentialId, "AAAA"])
                )
                #expect(removed.removed == [phone.credentialId])
                let events = try await registry.call(
                    ListSecurityEvents.self, .init(projectId: Self.project, tenantId: scope, localId: alice, limit: 10))
                #expect(Set(events.events.map(\.type)).isSuperset(of: ["factor.enrolled", "factor.withdrawn"]))
            }
        }
    }

    @Test("a credential id is one passkey in its scope: the same id elsewhere in it is PASSKEY_EXISTS, in another scope it is new")
    func uniqueness() async throws {
        try await Self.withRegistry { registry, tenantId in
            let (alice, mallory) = (try await Self.account(registry, tenantId: nil), try await Self.account(registry, tenantId: nil))
            let key = Self.credential(2)
            #expect(try await Self.add(registry, key, to: alice, tenantId: nil) == nil)
            #expect(try await Self.add(registry, key, to: mallory, tenantId: nil) == "PASSKEY_EXISTS")
            #expect(try await Self.add(registry, key, to: alice, tenantId: nil) == "PASSKEY_EXISTS")
            let bob = try await Self.account(registry, tenantId: tenantId)
            #expect(try await Self.add(registry, key, to: bob, tenantId: tenantId) == nil)
            #expect(try await Self.add(registry, Self.credential(3), to: "nobody", tenantId: nil) == "USER_NOT_FOUND")
            // Another account cannot remove it.
            let removed = try await registry.call(
                RemovePasskeys.self, .init(projectId: Self.project, localId: mallory, credentialIds: [key.credentialId]))
            #expect(removed.removed.isEmpty)
        }
    }

    @Test("ten enrollments racing past a limit of three leave three")
    func limit() async throws {
        try await Self.withRegistry { registry, _ in
            let alice = try await Self.account(registry, tenantId: nil)
            let outcomes = try await withThrowingTaskGroup(of: String?.self) { group in
                for seed in UInt8(10)..<20 {
                    group.addTask { try await Self.add(registry, Self.credential(seed), to: alice, tenantId: nil, maximum: 3) }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 3)
            #expect(outcomes.compactMap { $0 }.allSatisfy { $0 == "PASSKEY_LIMIT_EXCEEDED" })
            let listed = try await registry.call(ListPasskeys.self, .init(projectId: Self.project, localIds: [alice]))
            #expect(listed.passkeys.count == 3)
        }
    }

    @Test("a counter moves only from the value the sign-in was checked against; a deleted account takes its passkeys")
    func counters() async throws {
        try await Self.withRegistry { registry, _ in
            let alice = try await Self.account(registry, tenantId: nil)
            let key = Self.credential(4)
            #expect(try await Self.add(registry, key, to: alice, tenantId: nil) == nil)
            let use = { (from: Int64, to: Int64) in
                try await registry.refusal {
                    _ = try await registry.call(
                        RecordPasskeyUse.self,
                        .init(projectId: Self.project, credentialId: key.credentialId, previousSignCount: from, signCount: to))
                }
            }
            #expect(try await use(0, 5) == nil)
            #expect(try await use(0, 6) == "INVALID_AUTHENTICATOR_RESPONSE")
            #expect(try await use(5, 6) == nil)
            let found = try await registry.call(FindPasskey.self, .init(projectId: Self.project, credentialId: key.credentialId))
            #expect(found.credential.signCount == 6)
            _ = try await registry.call(DeleteAccount.self, .init(projectId: Self.project, localId: alice))
            #expect(try await use(6, 7) == "PASSKEY_ENROLLMENT_NOT_FOUND")
        }
    }
}
