import AuthVocabulary
import Contracts
import Foundation
import PostgresNIO
import ServiceKit
import TenantStore

/// The statements of ``TOTPFactorRepository``, each a type: its values, its text in a schema, its
/// row. Those of an enrollment's session are its owner's (``VerificationSessionRepository``).
extension TOTPFactorRepository {
    // MARK: Enrollment

    /// An imported secret as a factor that has accepted no step yet, replacing the same user's
    /// factor under the id; no row when the id is another user's factor.
    struct ImportFactor: Statement {
        typealias Row = SingleValue<Int32>
        static var isCached: Bool { false }
        let enrollmentId: String
        let localId: String
        let sealed: Data

        func query(in schema: TenantSchema) -> CachedQuery {
            let factors = schema.qualified(TOTPFactorRepository.factors)
            return """
                INSERT INTO \(sql: factors) (enrollment_id, local_id, secret_sealed, last_step)
                VALUES (\(enrollmentId), \(localId), \(ByteBuffer(bytes: sealed)), 0)
                ON CONFLICT (enrollment_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, last_step = 0, failures = 0,
                    failure_window_start = NULL
                WHERE \(sql: factors).local_id = excluded.local_id
                RETURNING 1
                """
        }
    }

    /// The enrolled factor, its first step already accepted.
    struct InsertFactor: Statement {
        let enrollmentId: String
        let localId: String
        let sealed: Data
        let step: Int64

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(TOTPFactorRepository.factors)) (enrollment_id, local_id, secret_sealed, last_step)
            VALUES (\(enrollmentId), \(localId), \(ByteBuffer(bytes: sealed)), \(step))
            """
        }
    }

    // MARK: Sign-in

    /// The factor, whether its limits stop any check now, and what the sign-in `attempt` was
    /// finished with already; no row: no such factor of this user. `attempt` '' finds no finished
    /// sign-in.
    struct ReadFactorForSignIn: Statement {
        typealias Row = FactorForSignIn
        let enrollmentId: String
        let localId: String
        let attempt: String
        let limits: SignInLimits

        func query(in schema: TenantSchema) -> CachedQuery {
            let (window, maximumFailures, capacity, refill) = (limits.window, limits.maximumFailures, limits.capacity, limits.refill)
            // The budget as it stands now: what was left, refilled by the time since, capped.
            return """
                SELECT secret_sealed, last_step,
                       (failure_window_start > now() - make_interval(secs => \(window)) AND failures >= \(maximumFailures))
                       OR least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) < 1
                       AS throttled,
                       (SELECT proof FROM \(sql: schema.qualified(FinishedSignIns.table))
                        WHERE attempt = \(attempt) AND expires_at > now()) AS finished_proof
                FROM \(sql: schema.qualified(TOTPFactorRepository.factors)) WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId)
                """
        }
    }

    /// What a sign-in check reads first (nothing to commit).
    struct FactorForSignIn: StatementRow {
        let sealedSecret: ByteBuffer
        let lastStep: Int64
        /// Whether the window's wrong codes or the daily budget stop any further check now.
        let throttled: Bool
        /// What the sign-in `attempt` was finished with already, if it was (decision 22).
        let finishedProof: String?

        init(_ columns: RowColumns) throws {
            sealedSecret = try columns("secret_sealed")
            lastStep = try columns("last_step")
            throttled = try columns("throttled", as: Bool?.self) == true
            finishedProof = try columns("finished_proof")
        }
    }

    /// A checked code's outcome, its audit record and the finished sign-in, in one statement (one
    /// commit, no extra round trip): see
    /// ``TOTPFactorRepository/recordSignInOutcome(enrollmentId:localId:attempt:good:step:bound:proof:limits:in:)``. Its
    /// row says whether the code was accepted; no row: nothing written.
    struct RecordSignInOutcome: Statement {
        typealias Row = SingleValue<Bool>
        let enrollmentId: String
        let localId: String
        let attempt: String
        let good: Bool
        let step: Int64
        let bound: Int64
        let proof: String
        let limits: SignInLimits

        func query(in schema: TenantSchema) throws -> CachedQuery {
            let (window, maximumFailures, capacity, refill) = (limits.window, limits.maximumFailures, limits.capacity, limits.refill)
            let kept = Double(FinishedSignIns.kept.components.seconds)
            let (actor, address, agent) = (SecurityEventLog.actor, SecurityEventLog.clientAddress, SecurityEventLog.userAgent)
            return try """
            WITH updated AS (
            UPDATE \(sql: schema.qualified(TOTPFactorRepository.factors)) SET
                last_step = CASE WHEN \(good) AND last_step < \(bound) THEN \(step) ELSE last_step END,
                failures = CASE WHEN \(good) AND last_step < \(bound) THEN 0
                                WHEN failure_window_start > now() - make_interval(secs => \(window)) THEN failures + 1
                                ELSE 1 END,
                failure_window_start = CASE WHEN \(good) AND last_step < \(bound) THEN NULL
                                            WHEN failure_window_start > now() - make_interval(secs => \(window))
                                            THEN failure_window_start
                                            ELSE now() END,
                budget = CASE WHEN \(good) AND last_step < \(bound) THEN budget ELSE least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) - 1 END,
                budget_updated_at = CASE WHEN \(good) AND last_step < \(bound) THEN budget_updated_at ELSE now() END,
                last_step_attempt = CASE WHEN \(good) AND last_step < \(bound) THEN \(attempt) ELSE last_step_attempt END
            WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId)
              AND (failure_window_start IS NULL OR failure_window_start <= now() - make_interval(secs => \(window))
                   OR failures < \(maximumFailures))
              AND ((\(good) AND last_step < \(bound)) OR least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) >= 1)
              AND NOT (\(good) AND \(attempt) <> '' AND last_step = \(step) AND last_step_attempt = \(attempt))
            RETURNING failure_window_start IS NULL AS ok
            ), recorded AS (
                INSERT INTO \(sql: schema.qualified(SecurityEventLog.table)) (type, local_id, actor, client_address, user_agent, details)
                SELECT CASE WHEN ok THEN 'secondFactor.succeeded' ELSE 'secondFactor.failed' END, \(localId), \(actor),
                       \(address), \(agent), jsonb_build_object('kind', \(FactorKind.totp.rawValue)::text, 'enrollmentId', \(enrollmentId)::text)
                FROM updated
            ), finished AS (
                INSERT INTO \(sql: schema.qualified(FinishedSignIns.table)) (attempt, proof, expires_at)
                SELECT \(attempt), \(proof), now() + make_interval(secs => \(kept)) FROM updated WHERE ok AND \(attempt) <> ''
            )
            SELECT ok FROM updated
            """
        }
    }

    /// One row when the user has the factor.
    struct FactorExists: Statement {
        typealias Row = SingleValue<Int32>
        let enrollmentId: String
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT 1 FROM \(sql: schema.qualified(TOTPFactorRepository.factors)) WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId)
            """
        }
    }

    // MARK: Withdrawal and the orphan sweep

    /// A withdrawn factor's secret.
    struct DeleteFactor: Statement {
        static var isCached: Bool { false }
        let enrollmentId: String
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            DELETE FROM \(sql: schema.qualified(TOTPFactorRepository.factors))
            WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId)
            """
        }
    }

    /// Up to `limit` factors after `after` (by enrollment id) whose secret is at least `age` seconds old.
    struct StoredFactors: Statement {
        typealias Row = StoredFactorKey
        static var isCached: Bool { false }
        let age: Double
        let after: String
        let limit: Int

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT local_id, enrollment_id FROM \(sql: schema.qualified(TOTPFactorRepository.factors))
            WHERE created_at < now() - make_interval(secs => \(age)) AND enrollment_id > \(after)
            ORDER BY enrollment_id LIMIT \(limit)
            """
        }
    }

    /// A stored factor's account and enrollment id.
    struct StoredFactorKey: StatementRow {
        let factor: StoredTOTPFactor

        init(_ columns: RowColumns) throws {
            factor = StoredTOTPFactor(localId: try columns("local_id"), mfaEnrollmentId: try columns("enrollment_id"))
        }
    }
}
