import Contracts
import DataServiceTesting
import Foundation
import JSONRPC
import ServiceKit
import ServiceTesting
import Testing

/// factor-registry's statements against its own PostgreSQL, through its method table, with the
/// other data services running beside it in-process (the default project is provisioned in all of
/// them by factor-registry's reconciler, as in a deployment): first-factor budgets, sign-up races,
/// and the enrollment list's limit, idempotence and session revocation.
@Suite("Account statements (factor-registry, in-process, PostgreSQL)")
struct AccountStatementTests {
    static let project = "demo-project"

    /// The three data services, with a password-failure budget of three per email and address, and
    /// `configuration` over that.
    static func withRegistry(
        _ configuration: [String: String] = [:], _ body: @Sendable (ServiceUnderTest) async throws -> Void
    ) async throws {
        let limits = ["firstFactor.failures.burst": "3", "firstFactor.failures.perHour": "1"]
        try await TwoScopeServices.withServices(project: project, configuration: limits.merging(configuration) { _, given in given }) {
            services in
            try await body(services[.factorRegistry])
        }
    }

    static func signIn(_ password: String, email: String = "alice@example.com", from address: String = "192.0.2.1") -> VerifyPassword.Params
    {
        VerifyPassword.Params(projectId: project, email: email, password: password, clientAddress: address)
    }

    @Test("wrong passwords spend the email's budget from that address: then even the right one is refused there, not elsewhere")
    func passwordFailureBudget() async throws {
        try await Self.withRegistry { registry in
            _ = try await registry.call(
                SignUpAccount.self, .init(projectId: Self.project, email: "alice@example.com", password: "right-password"))
            // A right password costs nothing of the budget.
            _ = try await registry.call(VerifyPassword.self, Self.signIn("right-password"))
            for _ in 0..<3 {
                #expect(
                    try await registry.refusal { _ = try await registry.call(VerifyPassword.self, Self.signIn("wrong-password")) }
                        == "INVALID_PASSWORD")
            }
            #expect(
                try await registry.refusal { _ = try await registry.call(VerifyPassword.self, Self.signIn("right-password")) }
                    == "TOO_MANY_ATTEMPTS_TRY_LATER"
            )
            // The owner, from another address, still signs in.
            let elsewhere = try await registry.call(VerifyPassword.self, Self.signIn("right-password", from: "198.51.100.7"))
            #expect(elsewhere.account.email == "alice@example.com")
            #expect(elsewhere.secondFactorRequired != true)
        }
    }

    @Test("parallel guesses cannot all pass a budget none of them has spent yet")
    func parallelGuessesAreCounted() async throws {
        try await Self.withRegistry { registry in
            _ = try await registry.call(
                SignUpAccount.self, .init(projectId: Self.project, email: "alice@example.com", password: "right-password"))
            let refusals = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        try? await registry.refusal { _ = try await registry.call(VerifyPassword.self, Self.signIn("wrong-password")) }
                    }
                }
                return await group.reduce(into: [String: Int]()) { $0[$1 ?? "accepted", default: 0] += 1 }
            }
            #expect(refusals == ["INVALID_PASSWORD": 3, "TOO_MANY_ATTEMPTS_TRY_LATER": 7])
        }
    }

    @Test("the second factor's account check: the factor of the kind checked only, records nothing; the record then moves lastLoginAt")
    func checkFactorThenRecord() async throws {
        try await Self.withRegistry { registry in
            let account = try await registry.call(
                SignUpAccount.self, .init(projectId: Self.project, email: "dan@example.com", password: "right-password")
            )
            let factor = Enrollment(mfaEnrollmentId: "factor-1", kind: .phone, displayName: nil, phoneNumber: "+15550100", enrolledAt: "")
            _ = try await registry.call(AddEnrollment.self, .init(projectId: Self.project, localId: account.localId, enrollment: factor))
            let checked = try await registry.call(
                CheckFactor.self, .init(projectId: Self.project, localId: account.localId, enrollmentId: "factor-1", kind: .phone)
            )
            #expect(checked.lastLoginAt == account.lastLoginAt)
            // A TOTP code never passes for a phone factor under the same id; an unknown user is that.
            let asTOTP = try await registry.refusal {
                _ = try await registry.call(
                    CheckFactor.self, .init(projectId: Self.project, localId: account.localId, enrollmentId: "factor-1", kind: .totp)
                )
            }
            #expect(asTOTP == "MFA_ENROLLMENT_NOT_FOUND")
            let nobody = try await registry.refusal {
                _ = try await registry.call(
                    CheckFactor.self, .init(projectId: Self.project, localId: "nobody", enrollmentId: "factor-1", kind: .phone)
                )
            }
            #expect(nobody == "USER_NOT_FOUND")
            // Recording checks the factor's kind as well: nothing is recorded for a TOTP sign-in there.
            let recordedAsTOTP = try await registry.refusal {
                _ = try await registry.call(
                    RecordSignIn.self,
                    .init(
                        projectId: Self.project, localId: account.localId, requiredEnrollment: "factor-1", requiredKind: .totp,
                        mode: .asynchronous
                    )
                )
            }
            #expect(recordedAsTOTP == "MFA_ENROLLMENT_NOT_FOUND")
            let signedInAt = Int64(Date().timeIntervalSince1970 * 1000) + 5000
            let recorded = try await registry.call(
                RecordSignIn.self,
                .init(
                    projectId: Self.project, localId: account.localId, requiredEnrollment: "factor-1", requiredKind: .phone,
                    signedInAt: signedInAt, mode: .asynchronous
                )
            )
            #expect(recorded.lastLoginAt == String(signedInAt))
        }
    }

    @Test("an id that cannot be a project's or tenant's is TENANT_NOT_FOUND; a tenant that does not exist too")
    func malformedScope() async throws {
        try await Self.withRegistry { registry in
            for (project, tenant) in [("Bad_Project", nil), (Self.project, "bad tenant"), (Self.project, "unknown")] as [(String, String?)]
            {
                let refusal = try await registry.refusal {
                    _ = try await registry.call(
                        SignUpAccount.self, .init(projectId: project, tenantId: tenant, email: "a@example.com", password: "right-password")
                    )
                }
                #expect(refusal == "TENANT_NOT_FOUND")
            }
            // A well-formed project nobody recorded is a configuration that does not exist.
            let refusal = try await registry.refusal {
                _ = try await registry.call(
                    SignUpAccount.self, .init(projectId: "nobodys-project", email: "a@example.com", password: "right-password")
                )
            }
            #expect(refusal == "CONFIGURATION_NOT_FOUND")
        }
    }

    @Test("an account held for its beforeCreate function goes when nobody releases it, freeing its email; a released one stays")
    func heldAccountsExpire() async throws {
        try await Self.withRegistry(["accounts.heldRetentionSeconds": "1", "accounts.heldSweepSeconds": "1"]) { registry in
            func signUp(_ email: String, held: Bool) async throws -> Account {
                try await registry.call(
                    SignUpAccount.self, .init(projectId: Self.project, email: email, password: "right-password", holdNewAccount: held)
                )
            }
            let abandoned = try await signUp("held@example.com", held: true)
            #expect(abandoned.disabled)
            let released = try await signUp("released@example.com", held: true)
            _ = try await registry.call(UpdateAccount.self, .init(projectId: Self.project, localId: released.localId, disabled: false))
            let deadline = ContinuousClock.now + .seconds(15)
            while try await registry.refusal({
                _ = try await registry.call(GetAccount.self, .init(projectId: Self.project, localId: abandoned.localId))
            }) == nil {
                #expect(ContinuousClock.now < deadline, "the held account was never removed")
                if ContinuousClock.now >= deadline { return }
                try await Task.sleep(for: .milliseconds(200))
            }
            // The owner's next try finds the email free; the released account is untouched.
            _ = try await signUp("held@example.com", held: false)
            try await Task.sleep(for: .seconds(2))
            let kept = try await registry.call(GetAccount.self, .init(projectId: Self.project, localId: released.localId))
            #expect(kept.disabled == false)
        }
    }

    @Test("parallel sign-ups with one email create one account")
    func parallelSignUpsOneAccount() async throws {
        // What is held is one account per email, not the hashing queue's shedding: eight scrypt hashes
        // may wait long on a test run's busy blocking pool, so the queue's deadline is far.
        try await Self.withRegistry(["rpc.timeoutMs": "120000"]) { registry in
            let outcomes = await withTaskGroup(of: String?.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try? await registry.refusal {
                            _ = try await registry.call(
                                SignUpAccount.self, .init(projectId: Self.project, email: "Bob@Example.com", password: "password-\(index)")
                            )
                        }
                    }
                }
                return await group.reduce(into: [String: Int]()) { $0[$1 ?? "created", default: 0] += 1 }
            }
            #expect(outcomes == ["created": 1, "EMAIL_EXISTS": 7])
        }
    }

    @Test("enrollments: a retried add changes nothing, the sixth factor is refused, and an add with revokeSessions moves validSince")
    func enrollmentList() async throws {
        try await Self.withRegistry { registry in
            let account = try await registry.call(
                SignUpAccount.self, .init(projectId: Self.project, email: "carol@example.com", password: "right-password")
            )
            func factor(_ index: Int) -> Enrollment {
                Enrollment(mfaEnrollmentId: "factor-\(index)", kind: .totp, displayName: "app \(index)", phoneNumber: nil, enrolledAt: "")
            }
            let first = try await registry.call(
                AddEnrollment.self, .init(projectId: Self.project, localId: account.localId, enrollment: factor(1), revokeSessions: true)
            )
            let validSince = try #require(first.validSince)
            let retried = try await registry.call(
                AddEnrollment.self, .init(projectId: Self.project, localId: account.localId, enrollment: factor(1), revokeSessions: true)
            )
            #expect(retried.mfaInfo?.count == 1)
            #expect(retried.validSince == validSince)
            for index in 2...5 {
                _ = try await registry.call(
                    AddEnrollment.self, .init(projectId: Self.project, localId: account.localId, enrollment: factor(index)))
            }
            #expect(
                try await registry.refusal {
                    _ = try await registry.call(
                        AddEnrollment.self, .init(projectId: Self.project, localId: account.localId, enrollment: factor(6)))
                } == "SECOND_FACTOR_LIMIT_EXCEEDED"
            )
            #expect(
                try await registry.refusal {
                    _ = try await registry.call(
                        AddEnrollment.self, .init(projectId: Self.project, localId: "nobody", enrollment: factor(7)))
                } == "USER_NOT_FOUND"
            )
        }
    }
}
