import ChallengeIssuerApp
import Contracts
import FactorTOTP
import Foundation
import ServiceKit
import ServiceTesting
import Testing

/// challenge-issuer's TOTP statements against its own PostgreSQL, through its method table: the
/// step compare-and-set with its audit row in one statement, single use under parallel requests,
/// decision 22's exact retry, and the per-factor throttle.
@Suite("TOTP statements (challenge-issuer, in-process, PostgreSQL)")
struct TOTPStatementTests {
    static let project = "totp-statements"

    /// challenge-issuer on a fresh database with `project`'s schema provisioned, as factor-registry
    /// provisions it.
    static func withIssuer(_ body: @Sendable (ServiceUnderTest) async throws -> Void) async throws {
        try await ServiceUnderTest.withRunning(.challengeIssuer, build: ChallengeIssuerApp.build) { issuer in
            let provisioned = try await issuer.call(ProvisionTenantSchema.self, TenantScope(projectId: project), as: .factorRegistry)
            #expect(provisioned.schema == schema)
            try await body(issuer)
        }
    }

    /// The PostgreSQL schema that holds the project's data (as every data service names it).
    static let schema = "p_" + project

    /// A TOTP factor of `localId` enrolled with the code of the current step: its secret and that step.
    static func enroll(_ issuer: ServiceUnderTest, localId: String, enrollmentId: String) async throws -> (secret: [UInt8], step: Int64) {
        let started = try await issuer.call(StartTOTPEnrollment.self, .init(projectId: project, localId: localId))
        let secret = try #require(Base32.decode(started.sharedSecretKey))
        let step = Int64(Date().timeIntervalSince1970) / TOTPFactorProvider.period
        _ = try await issuer.call(
            FinalizeTOTPEnrollment.self,
            .init(
                projectId: project, localId: localId, sessionInfo: started.sessionInfo,
                verificationCode: TOTPFactorProvider.code(secret: secret, step: step), adjacentIntervals: 1, mfaEnrollmentId: enrollmentId
            )
        )
        return (secret, step)
    }

    static func verify(code: String, localId: String = "alice", enrollmentId: String = "factor-1", attempt: String? = nil)
        -> VerifyTOTP.Params
    {
        VerifyTOTP.Params(
            projectId: project, localId: localId, mfaEnrollmentId: enrollmentId, verificationCode: code, adjacentIntervals: 1,
            attempt: attempt
        )
    }

    /// The outcomes challenge-issuer recorded for `localId`, oldest first.
    static func events(_ issuer: ServiceUnderTest, localId: String = "alice") async throws -> [String] {
        try await issuer.rows(
            "SELECT type FROM \"\(schema)\".security_events WHERE local_id = '\(localId)' ORDER BY id",
            as: String.self
        )
    }

    @Test("a step is accepted once: the enrollment's own code and a used sign-in code are refused, each outcome with its audit row")
    func stepAcceptedOnce() async throws {
        try await Self.withIssuer { issuer in
            let (secret, step) = try await Self.enroll(issuer, localId: "alice", enrollmentId: "factor-1")
            // The enrollment recorded its step: its code does not sign in.
            #expect(
                try await issuer.refusal {
                    _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: TOTPFactorProvider.code(secret: secret, step: step)))
                }
                    == "INVALID_CODE"
            )
            let next = TOTPFactorProvider.code(secret: secret, step: step + 1)
            _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: next))
            #expect(try await issuer.refusal { _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: next)) } == "INVALID_CODE")
            #expect(
                try await Self.events(issuer) == ["secondFactor.failed", "secondFactor.succeeded", "secondFactor.failed"]
            )
        }
    }

    @Test("parallel requests with one code: exactly one is accepted")
    func parallelRequestsOneWinner() async throws {
        try await Self.withIssuer { issuer in
            let (secret, step) = try await Self.enroll(issuer, localId: "alice", enrollmentId: "factor-1")
            let code = TOTPFactorProvider.code(secret: secret, step: step + 1)
            let accepted = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask { (try? await issuer.call(VerifyTOTP.self, Self.verify(code: code))) != nil }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(accepted == 1)
            #expect(try await Self.events(issuer).filter { $0 == "secondFactor.succeeded" }.count == 1)
        }
    }

    @Test("decision 22: the same attempt with the same code passes again; another attempt with it is refused")
    func exactRetryOfAFinishedSignIn() async throws {
        try await Self.withIssuer { issuer in
            let (secret, step) = try await Self.enroll(issuer, localId: "alice", enrollmentId: "factor-1")
            let code = TOTPFactorProvider.code(secret: secret, step: step + 1)
            _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: code, attempt: "attempt-a"))
            _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: code, attempt: "attempt-a"))
            #expect(
                try await issuer.refusal { _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: code, attempt: "attempt-b")) }
                    == "INVALID_CODE"
            )
            // The finished attempt with another code (a guess at the retry) is refused as spent.
            let other = TOTPFactorProvider.code(secret: secret, step: step)
            #expect(
                try await issuer.refusal { _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: other, attempt: "attempt-a")) }
                    != nil)
            #expect(try await Self.events(issuer).filter { $0 == "secondFactor.succeeded" }.count == 1)
        }
    }

    @Test("after five wrong codes the right one is refused too, and the trip is audited")
    func wrongCodesThrottleTheFactor() async throws {
        try await Self.withIssuer { issuer in
            let (secret, step) = try await Self.enroll(issuer, localId: "alice", enrollmentId: "factor-1")
            let right = TOTPFactorProvider.code(secret: secret, step: step + 1)
            let wrong = right == "000000" ? "111111" : "000000"
            for _ in 0..<5 {
                #expect(try await issuer.refusal { _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: wrong)) } == "INVALID_CODE")
            }
            #expect(
                try await issuer.refusal { _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: right)) }
                    == "TOO_MANY_ATTEMPTS_TRY_LATER"
            )
            let events = try await Self.events(issuer)
            // The five guesses are audited; the refused sixth check is the throttle's trip, not a guess.
            #expect(events.filter { $0 == "secondFactor.failed" }.count == 5)
            #expect(events.last == "rateLimit.tripped")
            // Another user's factor is not touched by alice's guesses.
            let (bobSecret, bobStep) = try await Self.enroll(issuer, localId: "bob", enrollmentId: "factor-2")
            _ = try await issuer.call(
                VerifyTOTP.self,
                Self.verify(code: TOTPFactorProvider.code(secret: bobSecret, step: bobStep + 1), localId: "bob", enrollmentId: "factor-2")
            )
        }
    }

    @Test("an id that cannot be a project's or tenant's is TENANT_NOT_FOUND, as is a scope whose schema is not here")
    func malformedScope() async throws {
        try await Self.withIssuer { issuer in
            for (project, tenant) in [("Bad_Project", nil), (Self.project, "bad tenant"), (Self.project, "unknown")] as [(String, String?)]
            {
                let refusal = try await issuer.refusal {
                    _ = try await issuer.call(StartTOTPEnrollment.self, .init(projectId: project, tenantId: tenant, localId: "alice"))
                }
                #expect(refusal == "TENANT_NOT_FOUND")
            }
        }
    }

    @Test("a factor is found only with its own user: another user's id is MFA_ENROLLMENT_NOT_FOUND")
    func factorBelongsToItsUser() async throws {
        try await Self.withIssuer { issuer in
            let (secret, step) = try await Self.enroll(issuer, localId: "alice", enrollmentId: "factor-1")
            let code = TOTPFactorProvider.code(secret: secret, step: step + 1)
            #expect(
                try await issuer.refusal { _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: code, localId: "mallory")) }
                    == "MFA_ENROLLMENT_NOT_FOUND"
            )
            // Only the gateway may check a code.
            #expect(
                try await issuer.refusal { _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: code), as: .sessionToken) } != nil)
            _ = try await issuer.call(VerifyTOTP.self, Self.verify(code: code))
        }
    }
}
