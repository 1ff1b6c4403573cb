import Contracts
import DataServiceTesting
import FactorTOTP
import Foundation
import ServiceKit
import ServiceTesting
import ServiceTransport
import Testing

extension DataServiceStatements {
    /// challenge-issuer's statements over stored TOTP secrets, against its own PostgreSQL, through its
    /// method table, in two scopes (the project and one of its tenants): imported secrets sign in and
    /// refuse another user's enrollment id, factor-registry's orphan sweep lists them by age and page,
    /// a withdrawn factor's secret is deleted, and a deleted account's secrets and open sessions are
    /// forgotten; an enrollment id is one factor per scope, and nothing crosses to the other scope.
    @Suite("TOTP secret statements (challenge-issuer, in-process, PostgreSQL, two scopes)")
    struct TOTPSecretStatementTests {
        static let project = "totp-secrets"

        static func secret(_ seed: UInt8) -> [UInt8] { (0..<20).map { seed &+ UInt8($0) } }

        static func entry(_ localId: String, _ enrollmentId: String, seed: UInt8) -> ImportTOTPSecrets.Secret {
            .init(localId: localId, mfaEnrollmentId: enrollmentId, sharedSecretKey: Base32.encode(secret(seed)))
        }

        /// The refusal of a sign-in with the current code of `seed`'s secret; `nil`: it signed in.
        static func signIn(
            _ issuer: ServiceUnderTest, scope: String?, localId: String, enrollmentId: String, seed: UInt8
        ) async throws -> String? {
            let step = Int64(Date().timeIntervalSince1970) / TOTPFactorProvider.period
            return try await issuer.refusal {
                _ = try await issuer.call(
                    VerifyTOTP.self,
                    .init(
                        projectId: project, tenantId: scope, localId: localId, mfaEnrollmentId: enrollmentId,
                        verificationCode: TOTPFactorProvider.code(secret: secret(seed), step: step), adjacentIntervals: 1
                    )
                )
            }
        }

        static func stored(
            _ issuer: ServiceUnderTest, scope: String?, olderThan: Int = 0, after: String? = nil, limit: Int = 100
        ) async throws -> [StoredTOTPFactor] {
            try await issuer.call(
                ListStoredTOTPFactors.self,
                .init(projectId: project, tenantId: scope, olderThanSeconds: olderThan, after: after, limit: limit), as: .factorRegistry
            ).factors
        }

        @Test("imported secrets sign in; a bad key is refused by its index, and an id another user's factor has only in its own scope")
        func imported() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let owner = scope == nil ? "alice" : "bob"
                    let imported = try await issuer.call(
                        ImportTOTPSecrets.self,
                        .init(
                            projectId: Self.project, tenantId: scope,
                            secrets: [
                                Self.entry(owner, "totp-1", seed: 1),
                                .init(localId: owner, mfaEnrollmentId: "totp-2", sharedSecretKey: "not base32!"),
                                .init(
                                    localId: owner, mfaEnrollmentId: "totp-3", sharedSecretKey: Base32.encode(Array(Self.secret(1)[0..<9]))),
                                Self.entry("mallory", "totp-1", seed: 9),
                            ]
                        )
                    )
                    let base32 = "totpInfo.sharedSecretKey must be base32 of 10 to 64 bytes"
                    #expect(
                        imported.refused == [
                            .init(index: 1, message: base32), .init(index: 2, message: base32),
                            .init(index: 3, message: "Enrollment id already exists."),
                        ])
                    #expect(try await Self.signIn(issuer, scope: scope, localId: owner, enrollmentId: "totp-1", seed: 1) == nil)
                    #expect(
                        try await Self.signIn(issuer, scope: scope, localId: "mallory", enrollmentId: "totp-1", seed: 9)
                            == "MFA_ENROLLMENT_NOT_FOUND")
                    #expect(
                        try await Self.signIn(issuer, scope: scope, localId: owner, enrollmentId: "totp-2", seed: 1)
                            == "MFA_ENROLLMENT_NOT_FOUND")
                    // The project's alice has no factor in the tenant, whose totp-1 is bob's.
                    if scope == nil {
                        #expect(try await Self.stored(issuer, scope: other).isEmpty)
                    } else {
                        #expect(
                            try await Self.signIn(issuer, scope: scope, localId: "alice", enrollmentId: "totp-1", seed: 1)
                                == "MFA_ENROLLMENT_NOT_FOUND")
                    }
                    // Importing again for the same user replaces the secret: the old one no longer signs in.
                    let again = try await issuer.call(
                        ImportTOTPSecrets.self,
                        .init(projectId: Self.project, tenantId: scope, secrets: [Self.entry(owner, "totp-1", seed: 5)])
                    )
                    #expect(again.refused.isEmpty)
                    #expect(try await Self.signIn(issuer, scope: scope, localId: owner, enrollmentId: "totp-1", seed: 1) == "INVALID_CODE")
                    #expect(try await Self.signIn(issuer, scope: scope, localId: owner, enrollmentId: "totp-1", seed: 5) == nil)
                }
                // The tenant's import of totp-1 for bob left the project's alice's factor of that id as it was.
                #expect(try await Self.stored(issuer, scope: nil) == [StoredTOTPFactor(localId: "alice", mfaEnrollmentId: "totp-1")])
                #expect(try await Self.stored(issuer, scope: tenantId) == [StoredTOTPFactor(localId: "bob", mfaEnrollmentId: "totp-1")])
            }
        }

        @Test("the orphan sweep lists stored secrets by age and page, never another scope's, and only to factor-registry")
        func listedForTheSweep() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let ids = scope == nil ? ["a-1", "a-2", "a-3"] : ["b-1", "b-2"]
                    let imported = try await issuer.call(
                        ImportTOTPSecrets.self,
                        .init(projectId: Self.project, tenantId: scope, secrets: ids.map { Self.entry("user-\($0)", $0, seed: 3) }))
                    #expect(imported.refused.isEmpty)
                    // Just stored: an enrollment may be between its two steps, so an hour's age leaves them out.
                    #expect(try await Self.stored(issuer, scope: scope, olderThan: 3600).isEmpty)
                    let all = try await Self.stored(issuer, scope: scope)
                    #expect(all == ids.map { StoredTOTPFactor(localId: "user-\($0)", mfaEnrollmentId: $0) })
                    let first = try await Self.stored(issuer, scope: scope, limit: 1)
                    let rest = try await Self.stored(issuer, scope: scope, after: first.last?.mfaEnrollmentId, limit: 100)
                    #expect(first + rest == all)
                    if scope == nil { #expect(try await Self.stored(issuer, scope: other).isEmpty) }
                    #expect(
                        try await issuer.refusal {
                            _ = try await issuer.call(
                                ListStoredTOTPFactors.self, .init(projectId: Self.project, tenantId: scope, olderThanSeconds: 0, limit: 10))
                        } == "Caller not allowed")
                    for (age, limit) in [(0, 0), (0, ListStoredTOTPFactors.maximumLimit + 1), (-1, 10)] {
                        #expect(
                            try await issuer.refusal { _ = try await Self.stored(issuer, scope: scope, olderThan: age, limit: limit) }
                                == "Invalid params")
                    }
                }
                #expect(try await Self.stored(issuer, scope: nil).map(\.mfaEnrollmentId) == ["a-1", "a-2", "a-3"])
            }
        }

        @Test("factor-registry's orphan sweep deletes the secrets no enrollment has, in every scope, and keeps an enrolled one's")
        func orphansSwept() async throws {
            let sweep = ["orphanSecrets.minimumAgeSeconds": "0", "orphanSecrets.sweepSeconds": "1"]
            try await TwoScopeServices.withRunning(project: Self.project, configuration: sweep) { services, tenantId in
                let (issuer, registry) = (services[.challengeIssuer], services[.factorRegistry])
                for scope in [nil, tenantId] {
                    _ = try await registry.call(
                        ImportAccounts.self, .init(projectId: Self.project, tenantId: scope, users: [ImportedAccount(localId: "alice")]))
                    let factor = Enrollment(mfaEnrollmentId: "totp-kept", kind: .totp, displayName: nil, phoneNumber: nil, enrolledAt: "")
                    _ = try await registry.call(
                        AddEnrollment.self, .init(projectId: Self.project, tenantId: scope, localId: "alice", enrollment: factor))
                    // The same ids in both scopes: an enrollment in one keeps no secret in the other.
                    let secrets = [Self.entry("alice", "totp-kept", seed: 9), Self.entry("alice", "totp-orphan", seed: 10)]
                    _ = try await issuer.call(ImportTOTPSecrets.self, .init(projectId: Self.project, tenantId: scope, secrets: secrets))
                }
                let kept = [StoredTOTPFactor(localId: "alice", mfaEnrollmentId: "totp-kept")]
                let deadline = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < deadline {
                    if try await Self.stored(issuer, scope: nil) == kept, try await Self.stored(issuer, scope: tenantId) == kept { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                #expect(try await Self.stored(issuer, scope: nil) == kept)
                #expect(try await Self.stored(issuer, scope: tenantId) == kept)
            }
        }

        @Test("a withdrawn factor's secret is deleted in its scope only, by the gateway or factor-registry, idempotently")
        func deleted() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    _ = try await issuer.call(
                        ImportTOTPSecrets.self,
                        .init(projectId: Self.project, tenantId: scope, secrets: [Self.entry("alice", "totp-1", seed: 7)]))
                }
                for (scope, caller) in [(nil, ServiceName.gateway), (tenantId, .factorRegistry)] as [(String?, ServiceName)] {
                    let other = scope == nil ? tenantId : nil
                    let delete = DeleteTOTPFactor.Params(
                        projectId: Self.project, tenantId: scope, localId: "alice", mfaEnrollmentId: "totp-1")
                    // Another user's id deletes nothing; session-token may not delete at all.
                    _ = try await issuer.call(
                        DeleteTOTPFactor.self, .init(projectId: Self.project, tenantId: scope, localId: "bob", mfaEnrollmentId: "totp-1"))
                    #expect(
                        try await issuer.refusal { _ = try await issuer.call(DeleteTOTPFactor.self, delete, as: .sessionToken) }
                            == "Caller not allowed")
                    #expect(try await Self.stored(issuer, scope: scope).count == 1)
                    _ = try await issuer.call(DeleteTOTPFactor.self, delete, as: caller)
                    _ = try await issuer.call(DeleteTOTPFactor.self, delete, as: caller)
                    #expect(try await Self.stored(issuer, scope: scope).isEmpty)
                    #expect(
                        try await Self.signIn(issuer, scope: scope, localId: "alice", enrollmentId: "totp-1", seed: 7)
                            == "MFA_ENROLLMENT_NOT_FOUND")
                    if scope == nil {
                        #expect(try await Self.signIn(issuer, scope: other, localId: "alice", enrollmentId: "totp-1", seed: 7) == nil)
                    }
                }
            }
        }

        @Test(
            "a deleted account's secrets, open sessions and passkey challenges are forgotten, its own only; every account at once with allAccounts"
        )
        func forgotten() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    _ = try await issuer.call(
                        ImportTOTPSecrets.self,
                        .init(
                            projectId: Self.project, tenantId: scope,
                            secrets: [Self.entry("alice", "totp-1", seed: 1), Self.entry("bob", "totp-2", seed: 2)]))
                    // An enrollment alice started and never finished: a verification session of hers.
                    _ = try await issuer.call(StartTOTPEnrollment.self, .init(projectId: Self.project, tenantId: scope, localId: "alice"))
                }
                // A passkey enrollment alice began: its challenge must not outlive her account.
                var challenges: [String?: String] = [:]
                for scope in [nil, tenantId] {
                    challenges[scope] = try await issuer.call(
                        IssuePasskeyChallenge.self, .init(projectId: Self.project, tenantId: scope, purpose: .enroll, localId: "alice")
                    ).challenge
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let forget = AccountsToForget(projectId: Self.project, tenantId: scope, localIds: ["alice"])
                    #expect(try await issuer.call(ForgetAccountChallenges.self, forget).deleted == 3)
                    #expect(try await issuer.call(ForgetAccountChallenges.self, forget).deleted == 0)
                    let redeemed = try await issuer.refusal {
                        _ = try await issuer.call(
                            RedeemPasskeyChallenge.self,
                            .init(
                                projectId: Self.project, tenantId: scope, purpose: .enroll, localId: "alice",
                                challenge: challenges[scope] ?? ""
                            ))
                    }
                    #expect(redeemed == "INVALID_AUTHENTICATOR_RESPONSE")
                    #expect(
                        try await Self.signIn(issuer, scope: scope, localId: "alice", enrollmentId: "totp-1", seed: 1)
                            == "MFA_ENROLLMENT_NOT_FOUND")
                    #expect(try await Self.signIn(issuer, scope: scope, localId: "bob", enrollmentId: "totp-2", seed: 2) == nil)
                    if scope == nil {
                        #expect(try await Self.stored(issuer, scope: other).count == 2)
                    }
                    for malformed in [
                        AccountsToForget(projectId: Self.project, tenantId: scope),
                        AccountsToForget(projectId: Self.project, tenantId: scope, localIds: ["bob"], allAccounts: true),
                        AccountsToForget(projectId: Self.project, tenantId: scope, localIds: []),
                    ] {
                        #expect(
                            try await issuer.refusal { _ = try await issuer.call(ForgetAccountChallenges.self, malformed) }
                                == "Invalid params")
                    }
                }
                let everyone = AccountsToForget(projectId: Self.project, tenantId: tenantId, allAccounts: true)
                #expect(try await issuer.call(ForgetAccountChallenges.self, everyone).deleted == 1)
                #expect(try await Self.stored(issuer, scope: tenantId).isEmpty)
                #expect(try await Self.stored(issuer, scope: nil).map(\.localId) == ["bob"])
            }
        }
    }

}
