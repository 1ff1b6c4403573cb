import AuthVocabulary
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// The statements behind ``RecoveryCodes``: sets (`recovery_code_sets`, one per enrollment, with
/// their wrong-code window and daily budget) and their codes' keyed hashes (`recovery_codes`).
/// Each change is one transaction with its audit record.
struct RecoveryCodeRepository: Sendable {
    let client: Database
    let logger: Logger
    let events: SecurityEventLog
    let finished: FinishedSignIns

    static let sets: SQLText = "recovery_code_sets"
    static let codes: SQLText = "recovery_codes"

    /// Replaces the enrollment's set (creating it the first time) with `hashes`, the old codes and
    /// their budget going with it, audited in the same transaction.
    /// - Returns: whether a set was replaced; `nil` when the id is another user's set (nothing written).
    func replaceSet(enrollmentId: String, localId: String, hashes: [Data], in schema: TenantSchema) async throws -> Bool? {
        // Hex text, decoded by the statement: PostgresNIO binds no array of bytea.
        let hex = hashes.map { $0.map { String(format: "%02x", $0) }.joined() }
        let (sets, codes) = (schema.qualified(Self.sets), schema.qualified(Self.codes))
        let (events, logger) = (self.events, self.logger)
        return try await client.withTransaction(logger: logger) { connection -> Bool? in
            let owner = try await connection.query(
                "SELECT local_id FROM \(sql: sets) WHERE enrollment_id = \(enrollmentId) FOR UPDATE", logger: logger
            )
            var existing: String?
            for try await owned in owner.decode(String.self) { existing = owned }
            if let existing, existing != localId { return nil }
            try await connection.query("DELETE FROM \(sql: sets) WHERE enrollment_id = \(enrollmentId)", logger: logger)
            try await connection.query(
                "INSERT INTO \(sql: sets) (enrollment_id, local_id) VALUES (\(enrollmentId), \(localId))", logger: logger
            )
            try await connection.query(
                """
                INSERT INTO \(sql: codes) (enrollment_id, local_id, code_hash)
                SELECT \(enrollmentId), \(localId), decode(hash, 'hex') FROM unnest(\(hex)::text[]) AS hash
                """,
                logger: logger
            )
            try await events.record(
                .recoveryCodesGenerated, localId: localId,
                details: ["enrollmentId": enrollmentId, "codes": String(hashes.count), "replaced": String(existing != nil)],
                in: schema, on: connection
            )
            return existing != nil
        }
    }

    /// The limits a code is checked under: wrong codes per window, and the daily budget (a token
    /// bucket: `capacity`, refilled by `refill` per second).
    struct Limits: Sendable {
        let window: Double
        let maximumFailures: Int32
        let capacity: Double
        let refill: Double
    }

    enum Redemption: Sendable {
        case accepted(remaining: Int)
        case rejected
        case throttled
        /// No such set of this user.
        case missing
        /// The sign-in `attempt` was finished already, with this (decision 22).
        case finishedBefore(FinishedSignIns.Proof?)
    }

    /// Uses the code whose keyed hash is `hash` in one transaction, under the set's lock: the
    /// outcome (the code used up and the window cleared, or a failure counted against the window and
    /// the budget), its audit record and, for a sign-in, the finished `attempt` with `proof`. A set
    /// over its limits, or an attempt finished before, writes nothing.
    func redeem(
        enrollmentId: String, localId: String, hash: Data, attempt: String, proof: FinishedSignIns.Proof, limits: Limits,
        in schema: TenantSchema
    ) async throws -> Redemption {
        let (window, maximumFailures, capacity, refill) = (limits.window, limits.maximumFailures, limits.capacity, limits.refill)
        let (sets, codes) = (schema.qualified(Self.sets), schema.qualified(Self.codes))
        let (events, finished, logger) = (self.events, self.finished, self.logger)
        do {
            return try await client.withTransaction(logger: logger) { connection -> Redemption in
                let read = try await connection.query(
                    """
                    SELECT (failure_window_start > now() - make_interval(secs => \(window)) AND failures >= \(maximumFailures))
                           OR least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) < 1
                           AS throttled,
                           (SELECT proof FROM \(sql: schema.qualified(FinishedSignIns.table))
                            WHERE attempt = \(attempt) AND expires_at > now()) AS finished_proof
                    FROM \(sql: sets) WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId) FOR UPDATE
                    """,
                    logger: logger
                )
                var found: SetState?
                for try await row in read.decode(rows: SetState.self) { found = row }
                guard let (throttled, finishedProof) = found.map({ ($0.throttled, $0.finishedProof) }) else { return .missing }
                if let finishedProof { return .finishedBefore(FinishedSignIns.Proof(text: finishedProof)) }
                if throttled { return .throttled }
                let used = try await connection.query(
                    """
                    UPDATE \(sql: codes) SET used_at = now()
                    WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId) AND code_hash = \(hash) AND used_at IS NULL
                    RETURNING 1
                    """,
                    logger: logger
                )
                var accepted = false
                for try await _ in used.decode(Int32.self) { accepted = true }
                if accepted {
                    try await connection.query(
                        "UPDATE \(sql: sets) SET failures = 0, failure_window_start = NULL WHERE enrollment_id = \(enrollmentId)",
                        logger: logger
                    )
                    if !attempt.isEmpty { try await finished.record(attempt, proof: proof, in: schema, on: connection) }
                } else {
                    try await connection.query(
                        """
                        UPDATE \(sql: sets) SET
                            failures = CASE WHEN failure_window_start > now() - make_interval(secs => \(window)) THEN failures + 1 ELSE 1 END,
                            failure_window_start = CASE WHEN failure_window_start > now() - make_interval(secs => \(window))
                                                        THEN failure_window_start ELSE now() END,
                            budget = least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) - 1,
                            budget_updated_at = now()
                        WHERE enrollment_id = \(enrollmentId)
                        """,
                        logger: logger
                    )
                }
                try await events.record(
                    accepted ? .secondFactorSucceeded : .secondFactorFailed, localId: localId,
                    details: ["kind": FactorKind.recoveryCode.rawValue, "enrollmentId": enrollmentId], in: schema, on: connection
                )
                guard accepted else { return .rejected }
                let unused = try await connection.query(
                    "SELECT count(*) FROM \(sql: codes) WHERE enrollment_id = \(enrollmentId) AND used_at IS NULL", logger: logger
                )
                var remaining = 0
                for try await count in unused.decode(Int64.self) { remaining = Int(count) }
                return .accepted(remaining: remaining)
            }
        } catch  where UniqueViolation.matches(error) {
            // Another success of the same pending credential committed first.
            return .finishedBefore(try await finished.proof(of: attempt, in: schema))
        }
    }

    /// The set's unused codes and when it was made; `nil`: no such set of this user.
    func unused(enrollmentId: String, localId: String, in schema: TenantSchema) async throws -> (remaining: Int, generatedAt: Date)? {
        let rows = try await client.query(
            """
            SELECT (SELECT count(*) FROM \(sql: schema.qualified(Self.codes)) c
                    WHERE c.enrollment_id = s.enrollment_id AND c.used_at IS NULL) AS remaining,
                   s.generated_at
            FROM \(sql: schema.qualified(Self.sets)) s
            WHERE s.enrollment_id = \(enrollmentId) AND s.local_id = \(localId)
            """,
            logger: logger
        )
        var found: (Int, Date)?
        for try await row in rows.decode(rows: UnusedCodes.self) { found = (Int(row.remaining), row.generatedAt) }
        return found
    }

    /// The set of a withdrawn enrollment (DeleteTOTPFactor names either kind).
    func delete(enrollmentId: String, localId: String, in schema: TenantSchema) async throws {
        try await client.query(
            """
            DELETE FROM \(sql: schema.qualified(Self.sets)) WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId)
            """,
            logger: logger
        )
    }
}

/// A set's guessing state and the proof of a sign-in it already finished.
private struct SetState: StatementRow {
    let throttled: Bool
    let finishedProof: String?

    init(_ columns: RowColumns) throws {
        throttled = try columns("throttled")
        finishedProof = try columns("finished_proof")
    }
}

/// A set's unused codes and when it was made.
private struct UnusedCodes: StatementRow {
    let remaining: Int64
    let generatedAt: Date

    init(_ columns: RowColumns) throws {
        remaining = try columns("remaining")
        generatedAt = try columns("generated_at")
    }
}
