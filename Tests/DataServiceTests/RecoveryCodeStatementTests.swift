import Contracts
import DataServiceTesting
import Foundation
import ServiceKit
import ServiceTesting
import Testing

extension DataServiceStatements {
    /// challenge-issuer's recovery-code statements against its own PostgreSQL, through its method table,
    /// in two scopes (the project and one of its tenants): a set is generated whole and replaces the old
    /// one, each code is spent once (decision 22's exact retry aside), wrong codes throttle the set, a
    /// withdrawn enrollment and a deleted account take their codes, and nothing one scope holds is
    /// seen from the other.
    @Suite("Recovery-code statements (challenge-issuer, in-process, PostgreSQL, two scopes)")
    struct RecoveryCodeStatementTests {
        static let project = "recovery-statements"

        static func params(_ scope: String?, localId: String = "alice", enrollmentId: String = "recovery-1") -> GenerateRecoveryCodes.Params
        {
            .init(projectId: project, tenantId: scope, localId: localId, mfaEnrollmentId: enrollmentId)
        }

        /// What a redeem answers: how many codes are left (`"9 left"`), or its refusal.
        static func redeem(
            _ issuer: ServiceUnderTest, _ code: String, scope: String?, localId: String = "alice", attempt: String? = nil
        ) async throws -> String {
            var remaining = 0
            let refusal = try await issuer.refusal {
                remaining = try await issuer.call(
                    RedeemRecoveryCode.self,
                    .init(
                        projectId: project, tenantId: scope, localId: localId, mfaEnrollmentId: "recovery-1", code: code, attempt: attempt)
                ).remaining
            }
            return refusal ?? "\(remaining) left"
        }

        static func events(_ issuer: ServiceUnderTest, scope: String?) async throws -> [String] {
            try await issuer.call(ListSecurityEvents.self, .init(projectId: project, tenantId: scope, localId: "alice", limit: 50))
                .events.map(\.type).reversed()
        }

        @Test("a set is ten codes counted down as they are spent; a code is spent once, and the other scope has no set")
        func spentOnce() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let otherBefore = try await issuer.call(CountRecoveryCodes.self, Self.params(other))
                    let codes = try await issuer.call(GenerateRecoveryCodes.self, Self.params(scope)).codes
                    #expect(codes.count == 10 && Set(codes).count == 10)
                    let counted = try await issuer.call(CountRecoveryCodes.self, Self.params(scope))
                    #expect(counted.remaining == 10 && counted.generatedAt != nil)
                    // Typed as a user types it: lower case, no dashes.
                    let typed = codes[0].lowercased().replacingOccurrences(of: "-", with: "")
                    #expect(try await Self.redeem(issuer, typed, scope: scope) == "9 left")
                    #expect(try await Self.redeem(issuer, codes[0], scope: scope) == "INVALID_CODE")
                    #expect(try await Self.redeem(issuer, codes[1], scope: scope) == "8 left")
                    #expect(try await issuer.call(CountRecoveryCodes.self, Self.params(scope)).remaining == 8)
                    // Another user cannot spend alice's codes, nor see her set.
                    #expect(try await Self.redeem(issuer, codes[2], scope: scope, localId: "mallory") == "MFA_ENROLLMENT_NOT_FOUND")
                    #expect(try await issuer.call(CountRecoveryCodes.self, Self.params(scope, localId: "mallory")).remaining == 0)
                    // The other scope's count did not move: the set (and its spending) is this scope's alone.
                    #expect(try await issuer.call(CountRecoveryCodes.self, Self.params(other)) == otherBefore)
                    if scope == nil {
                        #expect(otherBefore == .init(remaining: 0, generatedAt: nil))
                        #expect(try await Self.redeem(issuer, codes[2], scope: other) == "MFA_ENROLLMENT_NOT_FOUND")
                    }
                    let events = try await Self.events(issuer, scope: scope)
                    #expect(
                        events == ["recoveryCodes.generated", "secondFactor.succeeded", "secondFactor.failed", "secondFactor.succeeded"])
                }
            }
        }

        @Test("decision 22: the sign-in a code finished passes again with that code only; another attempt with it is refused")
        func exactRetry() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    let codes = try await issuer.call(GenerateRecoveryCodes.self, Self.params(scope)).codes
                    #expect(try await Self.redeem(issuer, codes[0], scope: scope, attempt: "attempt-a") == "9 left")
                    // The answer was lost and the finalize retried: the same answer, nothing spent.
                    #expect(try await Self.redeem(issuer, codes[0], scope: scope, attempt: "attempt-a") == "9 left")
                    // The finished attempt with another code: its pending credential is spent.
                    #expect(
                        try await Self.redeem(issuer, codes[1], scope: scope, attempt: "attempt-a")
                            == "INVALID_MFA_PENDING_CREDENTIAL")
                    #expect(try await Self.redeem(issuer, codes[0], scope: scope, attempt: "attempt-b") == "INVALID_CODE")
                    #expect(try await issuer.call(CountRecoveryCodes.self, Self.params(scope)).remaining == 9)
                }
            }
        }

        @Test("a new set replaces the old one whole; an id that is another user's set is MFA_ENROLLMENT_NOT_FOUND")
        func regenerated() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    let old = try await issuer.call(GenerateRecoveryCodes.self, Self.params(scope)).codes
                    #expect(try await Self.redeem(issuer, old[0], scope: scope) == "9 left")
                    let new = try await issuer.call(GenerateRecoveryCodes.self, Self.params(scope)).codes
                    #expect(Set(new).isDisjoint(with: old))
                    #expect(try await issuer.call(CountRecoveryCodes.self, Self.params(scope)).remaining == 10)
                    #expect(try await Self.redeem(issuer, old[1], scope: scope) == "INVALID_CODE")
                    #expect(try await Self.redeem(issuer, new[0], scope: scope) == "9 left")
                    let taken = try await issuer.refusal {
                        _ = try await issuer.call(GenerateRecoveryCodes.self, Self.params(scope, localId: "mallory"))
                    }
                    #expect(taken == "MFA_ENROLLMENT_NOT_FOUND")
                    // mallory's refused generate left alice's set as it was.
                    #expect(try await Self.redeem(issuer, new[1], scope: scope) == "8 left")
                    let generated = try await Self.events(issuer, scope: scope).filter { $0 == "recoveryCodes.generated" }
                    #expect(generated.count == 2)
                }
            }
        }

        @Test("after five wrong codes a right one is refused too, the trip audited; the other scope's set is untouched")
        func throttled() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                let sets = [nil, tenantId].map { scope in (scope, Self.params(scope)) }
                var codes: [String?: [String]] = [:]
                for (scope, params) in sets { codes[scope] = try await issuer.call(GenerateRecoveryCodes.self, params).codes }
                for _ in 0..<5 {
                    #expect(try await Self.redeem(issuer, "0000-0000-0000-0000", scope: nil) == "INVALID_CODE")
                }
                // A malformed code is a wrong guess like any other, refused by the throttle now.
                #expect(try await Self.redeem(issuer, "not a code", scope: nil) == "TOO_MANY_ATTEMPTS_TRY_LATER")
                #expect(try await Self.redeem(issuer, codes[nil]![0], scope: nil) == "TOO_MANY_ATTEMPTS_TRY_LATER")
                #expect(try await issuer.call(CountRecoveryCodes.self, Self.params(nil)).remaining == 10)
                let events = try await Self.events(issuer, scope: nil)
                #expect(events.filter { $0 == "secondFactor.failed" }.count == 5)
                #expect(events.last == "rateLimit.tripped")
                // The same user and enrollment id in the tenant has its own window.
                #expect(try await Self.redeem(issuer, codes[tenantId]![0], scope: tenantId) == "9 left")
            }
        }

        @Test("a sign-in a code finished is spent for every factor: another enrollment's check with its attempt is refused as spent")
        func finishedAttemptSpentEverywhere() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    let codes = try await issuer.call(GenerateRecoveryCodes.self, Self.params(scope)).codes
                    #expect(try await Self.redeem(issuer, codes[0], scope: scope, attempt: "sign-in-1") == "9 left")
                    let elsewhere = { (attempt: String) in
                        try await issuer.refusal {
                            _ = try await issuer.call(
                                RedeemRecoveryCode.self,
                                .init(
                                    projectId: Self.project, tenantId: scope, localId: "alice", mfaEnrollmentId: "recovery-none",
                                    code: codes[1], attempt: attempt))
                        }
                    }
                    // No such set: for the finished sign-in that is its credential spent, for another one no enrollment.
                    #expect(try await elsewhere("sign-in-1") == "INVALID_MFA_PENDING_CREDENTIAL")
                    #expect(try await elsewhere("sign-in-2") == "MFA_ENROLLMENT_NOT_FOUND")
                }
            }
        }

        @Test(
            "a withdrawn enrollment's set goes with totp.delete, in its scope only, and a deleted account's with challenge.forgetAccounts")
        func deletedAndForgotten() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    _ = try await issuer.call(GenerateRecoveryCodes.self, Self.params(scope))
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    // Another user's id does not delete alice's set.
                    _ = try await issuer.call(
                        DeleteTOTPFactor.self,
                        .init(projectId: Self.project, tenantId: scope, localId: "mallory", mfaEnrollmentId: "recovery-1"))
                    #expect(try await issuer.call(CountRecoveryCodes.self, Self.params(scope)).remaining == 10)
                    // factor-registry's orphan sweep deletes too.
                    _ = try await issuer.call(
                        DeleteTOTPFactor.self,
                        .init(projectId: Self.project, tenantId: scope, localId: "alice", mfaEnrollmentId: "recovery-1"),
                        as: .factorRegistry)
                    #expect(try await issuer.call(CountRecoveryCodes.self, Self.params(scope)) == .init(remaining: 0, generatedAt: nil))
                    #expect(try await Self.redeem(issuer, "0000-0000-0000-0000", scope: scope) == "MFA_ENROLLMENT_NOT_FOUND")
                    if scope == nil {
                        #expect(try await issuer.call(CountRecoveryCodes.self, Self.params(other)).remaining == 10)
                    }
                }
                // A new set, then the account deleted: its set and ten codes go, and only its own.
                for scope in [nil, tenantId] {
                    _ = try await issuer.call(GenerateRecoveryCodes.self, Self.params(scope))
                    _ = try await issuer.call(GenerateRecoveryCodes.self, Self.params(scope, localId: "bob", enrollmentId: "recovery-2"))
                    let forgotten = try await issuer.call(
                        ForgetAccountChallenges.self, .init(projectId: Self.project, tenantId: scope, localIds: ["alice"]))
                    #expect(forgotten.deleted == 11)
                    #expect(try await issuer.call(CountRecoveryCodes.self, Self.params(scope)).remaining == 0)
                    #expect(
                        try await issuer.call(CountRecoveryCodes.self, Self.params(scope, localId: "bob", enrollmentId: "recovery-2"))
                            .remaining
                            == 10)
                }
                let left: [Int64] = try await issuer.rows("SELECT count(*) FROM \"t_\(tenantId)\".recovery_codes", as: Int64.self)
                #expect(left == [10])
            }
        }
    }

}
