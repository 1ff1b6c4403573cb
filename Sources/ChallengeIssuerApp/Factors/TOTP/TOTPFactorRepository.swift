import AuthVocabulary
import Contracts
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// The statements behind ``TOTPFactors``: TOTP enrollment sessions (`verification_sessions` of kind
/// `totp`) and enrolled factors (`totp_factors`) in one tenant schema. Secrets arrive and leave
/// sealed; what a code is worth is decided by the caller, never here.
struct TOTPFactorRepository: Sendable {
    let client: Database
    let logger: Logger

    static let sessions = PhoneSessionRepository.sessions
    static let factors: SQLText = "totp_factors"

    // MARK: Enrollment

    func insertEnrollmentSession(key: String, localId: String, sealed: Data, expiresAt: Date, in schema: TenantSchema) async throws {
        try await client.query(
            cached: """
                INSERT INTO \(sql: schema.qualified(Self.sessions))
                (session_id, kind, local_id, secret_sealed, purpose, expires_at)
                VALUES (\(key), 'totp', \(localId), \(ByteBuffer(bytes: sealed)), 'enroll', \(expiresAt))
                """,
            logger: logger
        )
    }

    /// An imported secret stored as a factor that has accepted no step yet; the same user's factor
    /// under that id is replaced. `false`: the id is another user's factor, left as it was.
    func importFactor(enrollmentId: String, localId: String, sealed: Data, in schema: TenantSchema) async throws -> Bool {
        let factors = schema.qualified(Self.factors)
        let rows = try await client.query(
            """
            INSERT INTO \(sql: factors) (enrollment_id, local_id, secret_sealed, last_step)
            VALUES (\(enrollmentId), \(localId), \(ByteBuffer(bytes: sealed)), 0)
            ON CONFLICT (enrollment_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, last_step = 0, failures = 0,
                failure_window_start = NULL
            WHERE \(sql: factors).local_id = excluded.local_id
            RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// An enrollment session as it stands, its row locked until the decision about it is written.
    struct EnrollmentSession: StatementRow {
        let localId: String?
        let sealedSecret: ByteBuffer?
        let expiresAt: Date
        let consumed: Bool
        let attempts: Int32
        /// The enrollment that used the session, and the step it was finished with (decision 22).
        let consumedBy: String?
        let consumedStep: Int64?

        init(_ columns: RowColumns) throws {
            localId = try columns("local_id")
            sealedSecret = try columns("secret_sealed")
            expiresAt = try columns("expires_at")
            consumed = try columns("consumed")
            attempts = try columns("attempts")
            consumedBy = try columns("consumed_by")
            consumedStep = try columns("consumed_step")
        }
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
        key: String, in schema: TenantSchema, decide: @escaping @Sendable (EnrollmentSession?) throws -> (EnrollmentWrite, Outcome)
    ) async throws -> Outcome {
        let (sessions, factors, logger) = (schema.qualified(Self.sessions), schema.qualified(Self.factors), self.logger)
        return try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                cached: """
                    SELECT local_id, secret_sealed, expires_at, consumed_at IS NOT NULL AS consumed, attempts, consumed_by, consumed_step
                    FROM \(sql: sessions) WHERE session_id = \(key) AND kind = 'totp' FOR UPDATE
                    """,
                logger: logger
            )
            var session: EnrollmentSession?
            for try await row in rows.decode(rows: EnrollmentSession.self) { session = row }
            let (write, outcome) = try decide(session)
            switch write {
            case .nothing:
                break
            case .countAttempt:
                try await connection.query(
                    cached: "UPDATE \(sql: sessions) SET attempts = attempts + 1 WHERE session_id = \(key)", logger: logger
                )
            case .enroll(let enrollmentId, let localId, let sealedFactor, let step):
                // Used up, and kept (marked with the enrollment and its step) until it expires, so an
                // exact retry of this enrollment is answered again.
                try await connection.query(
                    cached: """
                        UPDATE \(sql: sessions) SET consumed_at = now(), consumed_by = \(enrollmentId), consumed_step = \(step)
                        WHERE session_id = \(key)
                        """,
                    logger: logger
                )
                try await connection.query(
                    cached: """
                        INSERT INTO \(sql: factors) (enrollment_id, local_id, secret_sealed, last_step)
                        VALUES (\(enrollmentId), \(localId), \(ByteBuffer(bytes: sealedFactor)), \(step))
                        """,
                    logger: logger
                )
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

    /// The factor, whether it is throttled, and the attempt's finished sign-in; `nil`: no such
    /// factor of this user. `attempt` '' finds no finished sign-in.
    func factorForSignIn(enrollmentId: String, localId: String, attempt: String, limits: SignInLimits, in schema: TenantSchema)
        async throws -> FactorForSignIn?
    {
        let (window, maximumFailures, capacity, refill) = (limits.window, limits.maximumFailures, limits.capacity, limits.refill)
        // The budget as it stands now: what was left, refilled by the time since, capped.
        let rows = try await client.query(
            cached: """
                SELECT secret_sealed, last_step,
                       (failure_window_start > now() - make_interval(secs => \(window)) AND failures >= \(maximumFailures))
                       OR least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) < 1
                       AS throttled,
                       (SELECT proof FROM \(sql: schema.qualified(FinishedSignIns.table))
                        WHERE attempt = \(attempt) AND expires_at > now()) AS finished_proof
                FROM \(sql: schema.qualified(Self.factors)) WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId)
                """,
            logger: logger
        )
        for try await factor in rows.decode(rows: FactorForSignIn.self) { return factor }
        return nil
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
        let (window, maximumFailures, capacity, refill) = (limits.window, limits.maximumFailures, limits.capacity, limits.refill)
        let kept = Double(FinishedSignIns.kept.components.seconds)
        let (actor, address, agent) = (SecurityEventLog.actor, SecurityEventLog.clientAddress, SecurityEventLog.userAgent)
        let rows = try await client.query(
            cached: """
                WITH updated AS (
                UPDATE \(sql: schema.qualified(Self.factors)) SET
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
                """,
            logger: logger
        )
        var accepted: Bool?
        for try await ok in rows.decode(Bool.self) { accepted = ok }
        return accepted
    }

    func exists(enrollmentId: String, localId: String, in schema: TenantSchema) async throws -> Bool {
        let rows = try await client.query(
            cached: """
                SELECT 1 FROM \(sql: schema.qualified(Self.factors)) WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId)
                """,
            logger: logger
        )
        for try await _ in rows.decode(Int32.self) { return true }
        return false
    }

    // MARK: Withdrawal and the orphan sweep

    func delete(enrollmentId: String, localId: String, in schema: TenantSchema) async throws {
        try await client.query(
            """
            DELETE FROM \(sql: schema.qualified(Self.factors))
            WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId)
            """,
            logger: logger
        )
    }

    /// Up to `limit` factors after `after` (by enrollment id) whose secret is at least `age`
    /// seconds old; none in a schema not (or no longer) there.
    func stored(olderThan age: Double, after: String, limit: Int, in schema: TenantSchema) async throws -> [StoredTOTPFactor] {
        var factors: [StoredTOTPFactor] = []
        do {
            let rows = try await client.query(
                """
                SELECT local_id, enrollment_id FROM \(sql: schema.qualified(Self.factors))
                WHERE created_at < now() - make_interval(secs => \(age)) AND enrollment_id > \(after)
                ORDER BY enrollment_id LIMIT \(limit)
                """,
                logger: logger
            )
            for try await row in rows.decode(rows: StoredFactorKey.self) { factors.append(row.factor) }
        } catch  where TenantSchema.isMissing(error) {
            return []
        }
        return factors
    }
}

/// A stored factor's account and enrollment id.
private struct StoredFactorKey: StatementRow {
    let factor: StoredTOTPFactor

    init(_ columns: RowColumns) throws {
        factor = StoredTOTPFactor(localId: try columns("local_id"), mfaEnrollmentId: try columns("enrollment_id"))
    }
}
