import AuthVocabulary
import Contracts
import Crypto
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Recovery-code sets (docs/mfa-policy.md): ten single-use codes per set, stored as keyed hashes
/// (RecoveryCode), one set per recovery-code enrollment. A code is a second factor of last resort,
/// so its checks are TOTP's: the same wrong-code window and daily budget per set, the same audit
/// records, and decision 22's single use of a pending credential (FinishedSignIns).
struct RecoveryCodes: Sendable {
    let client: Database
    let hashKey: SymmetricKey
    let logger: Logger
    let maximumFailures: Int
    let failureWindow: Duration
    let budget: GuessingBudget
    let events: SecurityEventLog
    let finished: FinishedSignIns

    static let sets: SQLText = "recovery_code_sets"
    static let codes: SQLText = "recovery_codes"

    /// Replaces the enrollment's set (creating it the first time) in one transaction: the old
    /// codes and their budget go with it. A set of another user under the same id is refused.
    func generate(_ params: GenerateRecoveryCodes.Params) async throws -> GenerateRecoveryCodes.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let codes = (0..<RecoveryCode.setSize).map { _ in RecoveryCode.generate() }
        // Hex text, decoded by the statement: PostgresNIO binds no array of bytea.
        let hashes = codes.map {
            RecoveryCode.hash(RecoveryCode.normalised($0)!, enrollmentId: params.mfaEnrollmentId, key: hashKey)
                .map { String(format: "%02x", $0) }.joined()
        }
        let (sets, table) = (schema.qualified(Self.sets), schema.qualified(Self.codes))
        let (events, logger) = (self.events, self.logger)
        // `nil`: the id is another user's set (refused after the transaction, which then wrote nothing).
        let replaced: Bool? = try await client.withTransaction(logger: logger) { connection in
            let owner = try await connection.query(
                "SELECT local_id FROM \(sql: sets) WHERE enrollment_id = \(params.mfaEnrollmentId) FOR UPDATE", logger: logger
            )
            var existing: String?
            for try await localId in owner.decode(String.self) { existing = localId }
            if let existing, existing != params.localId { return nil }
            try await connection.query(
                "DELETE FROM \(sql: sets) WHERE enrollment_id = \(params.mfaEnrollmentId)", logger: logger
            )
            try await connection.query(
                """
                INSERT INTO \(sql: sets) (enrollment_id, local_id) VALUES (\(params.mfaEnrollmentId), \(params.localId))
                """,
                logger: logger
            )
            try await connection.query(
                """
                INSERT INTO \(sql: table) (enrollment_id, local_id, code_hash)
                SELECT \(params.mfaEnrollmentId), \(params.localId), decode(hash, 'hex') FROM unnest(\(hashes)::text[]) AS hash
                """,
                logger: logger
            )
            try await events.record(
                .recoveryCodesGenerated, localId: params.localId,
                details: ["enrollmentId": params.mfaEnrollmentId, "codes": String(codes.count), "replaced": String(existing != nil)],
                in: schema, on: connection
            )
            return existing != nil
        }
        guard let replaced else { throw ChallengeRejection.enrollmentNotFound }
        logger.info("recovery codes generated", metadata: ["replaced": "\(replaced)"])
        return .init(codes: codes)
    }

    private enum Outcome {
        case accepted(remaining: Int)
        case rejected
        case throttled
        case missing
        case retried(proof: FinishedSignIns.Proof?)
    }

    /// A code checked and used up in one transaction with its audit record and, for a sign-in, the
    /// finished attempt. Refusals are thrown after the commit, so a wrong code's count stands.
    func redeem(_ params: RedeemRecoveryCode.Params) async throws -> RedeemRecoveryCode.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let typed = RecoveryCode.normalised(params.code)
        // A malformed code is a wrong guess like any other; its hash matches nothing.
        let hash = typed.map { RecoveryCode.hash($0, enrollmentId: params.mfaEnrollmentId, key: hashKey) } ?? Data()
        let proof = FinishedSignIns.Proof.recoveryCode(enrollmentId: params.mfaEnrollmentId, codeHash: hash.base64EncodedString())
        let attempt = params.attempt ?? ""
        let window = Double(failureWindow.components.seconds)
        let daily = budget.rule(acceptedCodes: RecoveryCode.setSize)
        let (capacity, refill, maximumFailures) = (daily.capacity, daily.refillPerSecond, Int32(self.maximumFailures))
        let (sets, table) = (schema.qualified(Self.sets), schema.qualified(Self.codes))
        let (events, finished, logger) = (self.events, self.finished, self.logger)
        let localId = params.localId
        let enrollmentId = params.mfaEnrollmentId
        let outcome: Outcome
        do {
            outcome = try await client.withTransaction(logger: logger) { connection -> Outcome in
                let read = try await connection.query(
                    """
                    SELECT (failure_window_start > now() - make_interval(secs => \(window)) AND failures >= \(maximumFailures))
                           OR least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) < 1,
                           (SELECT proof FROM \(sql: schema.qualified(FinishedSignIns.table))
                            WHERE attempt = \(attempt) AND expires_at > now())
                    FROM \(sql: sets) WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId) FOR UPDATE
                    """,
                    logger: logger
                )
                var found: (Bool, String?)?
                for try await row in read.decode((Bool, String?).self) { found = row }
                guard let (throttled, finishedProof) = found else { return .missing }
                if let finishedProof { return .retried(proof: FinishedSignIns.Proof(text: finishedProof)) }
                if throttled { return .throttled }
                let used = try await connection.query(
                    """
                    UPDATE \(sql: table) SET used_at = now()
                    WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId) AND code_hash = \(hash) AND used_at IS NULL
                    RETURNING 1
                    """,
                    logger: logger
                )
                var accepted = false
                for try await _ in used.decode(Int32.self) { accepted = true }
                if accepted {
                    try await connection.query(
                        """
                        UPDATE \(sql: sets) SET failures = 0, failure_window_start = NULL WHERE enrollment_id = \(enrollmentId)
                        """,
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
                return .accepted(remaining: try await Self.unused(enrollmentId, in: table, on: connection, logger: logger))
            }
        } catch  where UniqueViolation.matches(error) {
            // Another success of the same pending credential committed first.
            outcome = .retried(proof: try await finished.proof(of: attempt, in: schema))
        }
        switch outcome {
        case .accepted(let remaining):
            events.countSecondFactorCheck(kind: .recoveryCode, outcome: .accepted)
            return .init(remaining: remaining)
        case .rejected:
            events.countSecondFactorCheck(kind: .recoveryCode, outcome: .rejected)
            throw ChallengeRejection.invalidCode
        case .throttled:
            events.countSecondFactorCheck(kind: .recoveryCode, outcome: .throttled)
            try await events.record(
                .rateLimitTripped, localId: localId, details: ["limit": "recovery codes per set", "enrollmentId": enrollmentId],
                in: schema
            )
            throw ChallengeRejection.tooManyAttempts
        case .missing:
            if !attempt.isEmpty, try await finished.proof(of: attempt, in: schema) != nil { throw FinishedSignIns.spent }
            throw ChallengeRejection.enrollmentNotFound
        case .retried(let earlier):
            // Decision 22: only the code that finished this sign-in passes it again, writing nothing.
            guard let earlier, earlier == proof, typed != nil else { throw FinishedSignIns.spent }
            return .init(
                remaining: try await count(
                    .init(projectId: params.projectId, tenantId: params.tenantId, localId: localId, mfaEnrollmentId: enrollmentId)
                ).remaining)
        }
    }

    func count(_ params: CountRecoveryCodes.Params) async throws -> CountRecoveryCodes.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let rows = try await client.query(
            """
            SELECT (SELECT count(*) FROM \(sql: schema.qualified(Self.codes)) c
                    WHERE c.enrollment_id = s.enrollment_id AND c.used_at IS NULL),
                   s.generated_at
            FROM \(sql: schema.qualified(Self.sets)) s
            WHERE s.enrollment_id = \(params.mfaEnrollmentId) AND s.local_id = \(params.localId)
            """,
            logger: logger
        )
        for try await (remaining, generatedAt) in rows.decode((Int64, Date).self) {
            return .init(remaining: Int(remaining), generatedAt: TOTPFactors.iso8601(generatedAt))
        }
        return .init(remaining: 0, generatedAt: nil)
    }

    private static func unused(_ enrollmentId: String, in table: SQLText, on connection: PostgresConnection, logger: Logger) async throws
        -> Int
    {
        let rows = try await connection.query(
            "SELECT count(*) FROM \(sql: table) WHERE enrollment_id = \(enrollmentId) AND used_at IS NULL", logger: logger
        )
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
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
