import Contracts
import DataServiceTesting
import Foundation
import ServiceKit
import ServiceTesting
import Testing

extension RegistryStatements {
    /// factor-registry's second-factor list statements against its own PostgreSQL, through its method
    /// table, in two scopes (the project and one of its tenants) whose accounts share an id: an admin's
    /// replacement of the whole phone-factor list (repeats dropped, given times kept, refusals changing
    /// nothing, each change audited) and the withdrawal of one factor, once, from its own account and
    /// scope, with the recovery codes that only backed it up.
    @Suite("Enrollment statements (factor-registry, in-process, PostgreSQL)")
    struct EnrollmentStatementTests {
        static let project = "demo-project"

        static func withRegistry(_ body: @Sendable (ServiceUnderTest, _ tenantId: String) async throws -> Void) async throws {
            try await TwoScopeServices.withRunning(project: project) { services, tenantId in
                try await body(services[.factorRegistry], tenantId)
            }
        }

        static func phone(_ id: String, _ number: String, at enrolledAt: String = "") -> Enrollment {
            Enrollment(mfaEnrollmentId: id, kind: .phone, displayName: "phone \(id)", phoneNumber: number, enrolledAt: enrolledAt)
        }

        static func factors(_ registry: ServiceUnderTest, of localId: String, in scope: String?) async throws -> [Enrollment]? {
            try await registry.call(GetAccount.self, .init(projectId: project, tenantId: scope, localId: localId)).mfaInfo
        }

        @Test(
            "an admin's replacement sets the whole phone-factor list of one account in one scope: repeats dropped, times kept, empty clears"
        )
        func replace() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    _ = try await registry.call(CreateAccount.self, .init(projectId: Self.project, tenantId: scope, localId: "alice"))
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let untouched = try await Self.factors(registry, of: "alice", in: other)
                    let replace = { (items: [Enrollment], localId: String) in
                        try await registry.call(
                            ReplaceEnrollments.self, .init(projectId: Self.project, tenantId: scope, localId: localId, enrollments: items))
                    }
                    // A TOTP-kind item is taken as the phone factor it names: only phones are admin-written.
                    var second = Self.phone("f-2", "+15550102")
                    second.kind = .totp
                    let replaced = try await replace(
                        [Self.phone("f-1", "+15550101", at: "2024-01-02T03:04:05Z"), second, Self.phone("f-3", "+15550101")], "alice")
                    #expect(replaced.mfaInfo?.map(\.mfaEnrollmentId) == ["f-1", "f-2"])
                    #expect(replaced.mfaInfo?.first?.enrolledAt == "2024-01-02T03:04:05.000000Z")
                    #expect(replaced.mfaInfo?.allSatisfy { $0.kind == .phone } == true)

                    let refusal = { (items: [Enrollment]) in try await registry.refusal { _ = try await replace(items, "alice") } }
                    #expect(try await refusal([Self.phone("f-4", "5550104")]) == "INVALID_MFA_PHONE_NUMBER : Invalid format.")
                    #expect(
                        try await refusal([Self.phone("", "+15550104")]) == "INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId must be defined.")
                    #expect(
                        try await refusal([Self.phone("f-4", "+15550104"), Self.phone("f-4", "+15550105")]) == "DUPLICATE_MFA_ENROLLMENT_ID"
                    )
                    #expect(
                        try await refusal((1...6).map { Self.phone("f-\($0)", "+1555020\($0)") }) == "SECOND_FACTOR_LIMIT_EXCEEDED")
                    let nobody = try await registry.refusal { _ = try await replace([Self.phone("f-1", "+15550101")], "nobody") }
                    #expect(nobody == "USER_NOT_FOUND")
                    #expect(try await Self.factors(registry, of: "alice", in: scope) == replaced.mfaInfo)

                    // f-1 kept as it was, f-2 withdrawn, f-5 new.
                    let next = try await replace(
                        [Self.phone("f-1", "+15550101", at: "2024-01-02T03:04:05Z"), Self.phone("f-5", "+15550105")], "alice")
                    #expect(next.mfaInfo?.map(\.mfaEnrollmentId) == ["f-1", "f-5"])
                    let events = try await registry.call(
                        ListSecurityEvents.self, .init(projectId: Self.project, tenantId: scope, localId: "alice", limit: 20))
                    let changes = events.events.filter { ["factor.enrolled", "factor.withdrawn"].contains($0.type) }
                        .map { "\($0.type) \($0.details["enrollmentId"] ?? "")" }
                    #expect(
                        Set(changes) == ["factor.enrolled f-1", "factor.enrolled f-2", "factor.withdrawn f-2", "factor.enrolled f-5"]
                            && changes.count == 4)
                    #expect(try await Self.factors(registry, of: "alice", in: other) == untouched)

                    let cleared = try await replace([], "alice")
                    #expect(cleared.mfaInfo == nil)
                    #expect(try await Self.factors(registry, of: "alice", in: scope) == nil)
                }
            }
        }

        @Test("a factor is withdrawn once, only from its own account in its own scope, with the recovery codes that backed it up")
        func remove() async throws {
            try await Self.withRegistry { registry, tenantId in
                let totp = Enrollment(mfaEnrollmentId: "f-1", kind: .totp, displayName: "app", phoneNumber: nil, enrolledAt: "")
                let codes = Enrollment(mfaEnrollmentId: "rc-1", kind: .recoveryCode, displayName: nil, phoneNumber: nil, enrolledAt: "")
                for scope in [nil, tenantId] {
                    for localId in ["alice", "bob"] {
                        _ = try await registry.call(CreateAccount.self, .init(projectId: Self.project, tenantId: scope, localId: localId))
                    }
                    for (localId, factor) in [("alice", totp), ("alice", Self.phone("f-2", "+15550102")), ("alice", codes), ("bob", totp)] {
                        _ = try await registry.call(
                            AddEnrollment.self, .init(projectId: Self.project, tenantId: scope, localId: localId, enrollment: factor))
                    }
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let untouched = try await Self.factors(registry, of: "alice", in: other)
                    let remove = { (localId: String, id: String) in
                        try await registry.call(
                            RemoveEnrollment.self, .init(projectId: Self.project, tenantId: scope, localId: localId, mfaEnrollmentId: id))
                    }
                    let refusal = { (localId: String, id: String) in try await registry.refusal { _ = try await remove(localId, id) } }
                    // Bob cannot withdraw Alice's phone; nobody has factors to withdraw.
                    #expect(try await refusal("bob", "f-2") == "MFA_ENROLLMENT_NOT_FOUND")
                    #expect(try await refusal("nobody", "f-1") == "MFA_ENROLLMENT_NOT_FOUND")
                    let withoutApp = try await remove("alice", "f-1")
                    #expect(withoutApp.mfaInfo?.map(\.mfaEnrollmentId) == ["f-2", "rc-1"])
                    #expect(try await refusal("alice", "f-1") == "MFA_ENROLLMENT_NOT_FOUND")
                    // The last factor takes the recovery codes with it.
                    let withoutAny = try await remove("alice", "f-2")
                    #expect(withoutAny.mfaInfo == nil)
                    #expect(try await refusal("alice", "rc-1") == "MFA_ENROLLMENT_NOT_FOUND")
                    #expect(try await Self.factors(registry, of: "bob", in: scope)?.map(\.mfaEnrollmentId) == ["f-1"])
                    #expect(try await Self.factors(registry, of: "alice", in: other) == untouched)
                    let events = try await registry.call(
                        ListSecurityEvents.self,
                        .init(projectId: Self.project, tenantId: scope, localId: "alice", types: ["factor.withdrawn"], limit: 10))
                    #expect(Set(events.events.compactMap { $0.details["enrollmentId"] }) == ["f-1", "f-2", "rc-1"])
                }
            }
        }
    }

}
