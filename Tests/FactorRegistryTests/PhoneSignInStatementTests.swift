import Contracts
import DataServiceTesting
import Foundation
import ServiceKit
import ServiceTesting
import Testing

extension RegistryStatements {
    /// factor-registry's phone first-factor statement against its own PostgreSQL, through its method
    /// table, in two scopes (the project and one of its tenants) that each know the same number: the
    /// first sign-in creates the scope's account and later ones sign in to it (one account even when
    /// first sign-ins race), a number is no first factor of an account with a second factor, a disabled
    /// account is refused, and an account held for its `beforeCreate` function is created disabled.
    @Suite("Phone sign-in statements (factor-registry, in-process, PostgreSQL)")
    struct PhoneSignInStatementTests {
        static let project = "demo-project"

        static func withRegistry(_ body: @Sendable (ServiceUnderTest, _ tenantId: String) async throws -> Void) async throws {
            try await TwoScopeServices.withRunning(project: project) { services, tenantId in
                try await body(services[.factorRegistry], tenantId)
            }
        }

        static func signIn(
            _ registry: ServiceUnderTest, _ number: String, in scope: String?, hold: Bool? = nil
        ) async throws -> SignInWithPhone.Result {
            try await registry.call(
                SignInWithPhone.self,
                .init(projectId: project, tenantId: scope, phoneNumber: number, clientAddress: "192.0.2.1", holdNewAccount: hold))
        }

        static func refusal(_ registry: ServiceUnderTest, _ number: String, in scope: String?) async throws -> String? {
            try await registry.refusal { _ = try await signIn(registry, number, in: scope) }
        }

        @Test("the first sign-in with a number creates its scope's account, the next ones sign in to it")
        func createThenSignIn() async throws {
            try await Self.withRegistry { registry, tenantId in
                var owners: [String] = []
                for scope in [nil, tenantId] {
                    // The other scope's account with this number, if any, is not this scope's.
                    let first = try await Self.signIn(registry, "+15550100", in: scope)
                    #expect(first.isNewUser && first.account.phoneNumber == "+15550100" && first.account.signInProvider == .phone)
                    #expect(!first.account.disabled && first.account.email == nil && first.lastLoginAt > 0)
                    let second = try await Self.signIn(registry, "+15550100", in: scope)
                    #expect(!second.isNewUser && second.account.localId == first.account.localId && second.lastLoginAt >= first.lastLoginAt)
                    let found = try await registry.call(
                        FindAccounts.self, .init(projectId: Self.project, tenantId: scope, phoneNumbers: ["+15550100"]))
                    #expect(found.accounts.map(\.localId) == [first.account.localId])
                    #expect(found.accounts.first?.lastLoginAt != nil)
                    owners.append(first.account.localId)
                    #expect(try await Self.refusal(registry, "5550100", in: scope) == "INVALID_PHONE_NUMBER : Invalid format.")
                    #expect(try await Self.refusal(registry, "+1 555 0100", in: scope) == "INVALID_PHONE_NUMBER : Invalid format.")
                }
                #expect(Set(owners).count == 2)
                let refused = try await registry.refusal {
                    _ = try await registry.call(
                        SignInWithPhone.self, .init(projectId: Self.project, phoneNumber: "+15550100"), as: .challengeIssuer)
                }
                #expect(refused == "Caller not allowed")
            }
        }

        @Test("a number is no first factor of an account with a second factor, nor of a disabled one; a held account is created disabled")
        func refusals() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let guarded = try await Self.signIn(registry, "+15550200", in: scope)
                    let factor = Enrollment(mfaEnrollmentId: "factor-1", kind: .totp, displayName: nil, phoneNumber: nil, enrolledAt: "")
                    _ = try await registry.call(
                        AddEnrollment.self,
                        .init(projectId: Self.project, tenantId: scope, localId: guarded.account.localId, enrollment: factor))
                    #expect(
                        try await Self.refusal(registry, "+15550200", in: scope)
                            == "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user.")
                    // The factor is the scope's account's: the same number elsewhere has none (yet).
                    if other == tenantId { #expect(try await Self.signIn(registry, "+15550200", in: other).isNewUser) }

                    let disabled = try await Self.signIn(registry, "+15550300", in: scope)
                    _ = try await registry.call(
                        UpdateAccount.self,
                        .init(projectId: Self.project, tenantId: scope, localId: disabled.account.localId, disabled: true))
                    #expect(try await Self.refusal(registry, "+15550300", in: scope) == "USER_DISABLED")

                    let held = try await Self.signIn(registry, "+15550400", in: scope, hold: true)
                    #expect(held.isNewUser && held.account.disabled)
                    // Held, it is no way in until released; the number is taken meanwhile.
                    #expect(try await Self.refusal(registry, "+15550400", in: scope) == "USER_DISABLED")
                    _ = try await registry.call(
                        UpdateAccount.self, .init(projectId: Self.project, tenantId: scope, localId: held.account.localId, disabled: false))
                    let released = try await Self.signIn(registry, "+15550400", in: scope)
                    #expect(!released.isNewUser && released.account.localId == held.account.localId)
                }
            }
        }

        @Test("parallel first sign-ins with one new number make one account per scope")
        func parallelFirstSignIns() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    let outcomes = try await withThrowingTaskGroup(of: SignInWithPhone.Result.self) { group in
                        for _ in 0..<6 { group.addTask { try await Self.signIn(registry, "+15550500", in: scope) } }
                        return try await group.reduce(into: [SignInWithPhone.Result]()) { $0.append($1) }
                    }
                    #expect(Set(outcomes.map(\.account.localId)).count == 1)
                    #expect(outcomes.filter(\.isNewUser).count == 1)
                    let counted = try await registry.call(
                        QueryAccounts.self,
                        .init(
                            projectId: Self.project, tenantId: scope, expression: [.init(phoneNumber: "+15550500")], returnUserInfo: false))
                    #expect(counted.recordsCount == 1)
                }
            }
        }
    }

}
