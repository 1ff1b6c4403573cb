import Contracts
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// The statements behind ``TOTPFactors``: enrolled factors (`totp_factors`) in one tenant schema,
/// and the enrollment sessions, which ``VerificationSessionRepository`` owns and whose statements
/// run here beside the factor they become. Secrets arrive and leave sealed; what a code is worth
/// is decided by the caller, never here. Each statement is a type of its own
/// (`TOTPFactorRepository+Statements.swift`); this file is what runs them.
struct TOTPFactorRepository: Sendable {
    let client: Database
    let logger: Logger

    static let factors: SQLText = "totp_factors"

    // MARK: Enrollment

    func insertEnrollmentSession(key: String, localId: String, sealed: Data, expiresAt: Date, in schema: TenantSchema) async throws {
        try await client.run(
            VerificationSessionRepository.InsertTOTPEnrollment(key: key, localId: localId, sealed: sealed, expiresAt: expiresAt),
            in: schema, logger: logger)
    }

    /// An imported secret stored as a factor that has accepted no step yet; the same user's factor
    /// under that id is replaced. `false`: the id is another user's factor, left as it was.
    func importFactor(enrollmentId: String, localId: String, sealed: Data, in schema: TenantSchema) async throws -> Bool {
        try await client.first(ImportFactor(enrollmentId: enrollmentId, localId: localId, sealed: sealed), in: schema, logger: logger)
            != nil
    }

    /// What to write about a locked enrollment session.
    enum EnrollmentWrite {
        case nothing
        /// A wrong code: one more attempt on the session.
        case countAttempt
        /// A good code: the session used up by `enrollmentId` at `step`, and the factor stored.
        case enroll(enrollmentId: String, localId: String, sealedFactor: Data, step: Int64)
    }

    /// Locks session `key`, asks `decide` what to do about it (`nil`: no such TOTP session), and
    /// writes that in the same transaction; returns what `decide` answered.
    func finishEnrollment<Outcome: Sendable>(
        key: String, in schema: TenantSchema,
        decide: @escaping @Sendable (VerificationSessionRepository.TOTPEnrollment?) throws -> (EnrollmentWrite, Outcome)
    ) async throws -> Outcome {
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            let session = try await connection.first(VerificationSessionRepository.LockTOTPEnrollment(key: key), in: schema, logger: logger)
            let (write, outcome) = try decide(session)
            switch write {
            case .nothing:
                break
            case .countAttempt:
                try await connection.run(VerificationSessionRepository.CountAttempt(key: key), in: schema, logger: logger)
            case .enroll(let enrollmentId, let localId, let sealedFactor, let step):
                try await connection.run(
                    VerificationSessionRepository.ConsumeTOTPEnrollment(key: key, enrollmentId: enrollmentId, step: step), in: schema,
                    logger: logger)
                try await connection.run(
                    InsertFactor(enrollmentId: enrollmentId, localId: localId, sealed: sealedFactor, step: step), in: schema,
                    logger: logger)
            }
            return outcome
        }
    }

    // MARK: Sign-in

    /// The limits a sign-in code is checked under: wrong codes per window, and the daily budget
    /// (a token bucket: `capacity`, refilled by `refill` per second).
    struct SignInLimits: Sendable {
        let window: Double
        let maximumFailures: Int32
        let capacity: Double
        let refill: Double
    }

    /// The factor, whether it is throttled, and the attempt's finished sign-in; `nil`: no such
    /// factor of this user. `attempt` '' finds no finished sign-in.
    func factorForSignIn(enrollmentId: String, localId: String, attempt: String, limits: SignInLimits, in schema: TenantSchema)
        async throws -> FactorForSignIn?
    {
        try await client.first(
            ReadFactorForSignIn(enrollmentId: enrollmentId, localId: localId, attempt: attempt, limits: limits), in: schema,
            logger: logger)
    }

    /// A checked code's outcome, its audit record and the finished sign-in, in one statement (one
    /// commit, no extra round trip). Under the row's lock, and only while the factor is within its
    /// limits, a good code moves the step by compare-and-set (`last_step < bound` to `step`,
    /// failures cleared, `attempt` finished with `proof`); anything else counts a failure.
    ///
    /// - Returns: `true` accepted, `false` counted as a failure (a wrong code, or a good one whose
    ///   step another request recorded first), `nil` nothing written: throttled since the read,
    ///   withdrawn meanwhile, or a parallel exact retry recorded this very step for this attempt.
    /// - Throws: a unique violation when another success of the same attempt committed first.
    func recordSignInOutcome(
        enrollmentId: String, localId: String, attempt: String, good: Bool, step: Int64, bound: Int64, proof: String,
        limits: SignInLimits, in schema: TenantSchema
    ) async throws -> Bool? {
        let outcome = RecordSignInOutcome(
            enrollmentId: enrollmentId, localId: localId, attempt: attempt, good: good, step: step, bound: bound, proof: proof,
            limits: limits)
        return try await client.first(outcome, in: schema, logger: logger)?.value
    }

    func exists(enrollmentId: String, localId: String, in schema: TenantSchema) async throws -> Bool {
        try await client.first(FactorExists(enrollmentId: enrollmentId, localId: localId), in: schema, logger: logger) != nil
    }

    // MARK: Withdrawal and the orphan sweep

    func delete(enrollmentId: String, localId: String, in schema: TenantSchema) async throws {
        try await client.run(DeleteFactor(enrollmentId: enrollmentId, localId: localId), in: schema, logger: logger)
    }

    /// Up to `limit` factors after `after` (by enrollment id) whose secret is at least `age`
    /// seconds old; none in a schema not (or no longer) there.
    func stored(olderThan age: Double, after: String, limit: Int, in schema: TenantSchema) async throws -> [StoredTOTPFactor] {
        do {
            return try await client.run(StoredFactors(age: age, after: after, limit: limit), in: schema, logger: logger).map(\.factor)
        } catch  where TenantSchema.isMissing(error) {
            return []
        }
    }
}
