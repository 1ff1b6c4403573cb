import AuthVocabulary
import Contracts
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Second-factor enrollments in each tenant's schema.
struct EnrollmentRepository: Sendable {
    static let table: SQLText = "mfa_enrollments"
    let client: Database
    /// The audit trail: each factor added or removed is recorded with the change.
    let events: SecurityEventLog
    let logger: Logger

    enum AddOutcome: Sendable {
        case added
        /// This enrollment id is already recorded for this user (a retried call).
        case alreadyAdded
        case accountMissing
        case phoneAlreadyEnrolled
        case limitReached
        /// Recovery codes back up a factor: an account without one cannot have them.
        case noFactorToRecover
    }

    /// Adds an enrollment under a lock on the account row, so the count check and the insert cannot
    /// interleave with another enrollment of the same user. With `revokeSessions` the same commit
    /// sets `valid_since` to the second after `enrolled_at` (both are the transaction's `now()`).
    func add(
        in schema: TenantSchema, localId: String, _ enrollment: Enrollment, maximum: Int, revokeSessions: Bool = false
    ) async throws -> AddOutcome {
        let enrollments = schema.qualified(Self.table)
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            guard try await AccountRepository.lock(localId, in: schema, on: connection, logger: logger) else { return .accountMissing }
            let rows = try await connection.query(
                cached: """
                    SELECT enrollment_id, phone_number, kind FROM \(sql: enrollments) WHERE local_id = \(localId)
                    """,
                logger: logger
            )
            var count = 0
            for try await held in rows.decode(rows: HeldFactor.self) {
                if held.enrollmentId == enrollment.mfaEnrollmentId { return .alreadyAdded }
                if let phone = held.phoneNumber, phone == enrollment.phoneNumber { return .phoneAlreadyEnrolled }
                // A recovery-code set (docs/mfa-policy.md) is not a factor of its own: it does not count
                // against the limit, needs another factor, and goes with the last one.
                if held.kind != FactorKind.recoveryCode.rawValue { count += 1 }
            }
            if enrollment.kind == .recoveryCode {
                guard count > 0 else { return .noFactorToRecover }
            } else {
                guard count < maximum else { return .limitReached }
            }
            try await connection.query(
                cached: """
                    INSERT INTO \(sql: enrollments) (enrollment_id, local_id, kind, display_name, phone_number)
                    VALUES (\(enrollment.mfaEnrollmentId), \(localId), \(enrollment.kind.rawValue), \(enrollment.displayName),
                            \(enrollment.phoneNumber))
                    """,
                logger: logger
            )
            try await events.record(
                .factorEnrolled, localId: localId, details: Self.details(enrollment), in: schema, on: connection
            )
            if revokeSessions { try await AccountRepository.endSessions(of: localId, in: schema, on: connection, logger: logger) }
            return .added
        }
    }

    /// Replaces every enrollment of an existing account, in one transaction; `false` when there is
    /// no such account.
    func replace(in schema: TenantSchema, localId: String, _ enrollments: [Enrollment]) async throws -> Bool {
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            guard try await AccountRepository.lock(localId, in: schema, on: connection, logger: logger) else { return false }
            try await replace(in: schema, localId: localId, enrollments, on: connection)
            return true
        }
    }

    /// Replaces every enrollment of the account on `connection` (a transaction of the caller's that
    /// holds or has just written the account's row), each change recorded.
    func replace(in schema: TenantSchema, localId: String, _ enrollments: [Enrollment], on connection: PostgresConnection)
        async throws
    {
        let table = schema.qualified(Self.table)
        let before = try await connection.query(
            "SELECT enrollment_id, kind, phone_number FROM \(sql: table) WHERE local_id = \(localId)", logger: logger
        )
        var previous: [String: String] = [:]
        for try await held in before.decode(rows: HeldFactor.self) { previous[held.enrollmentId] = held.kind }
        try await Self.replace(in: schema, table: table, localId: localId, enrollments, connection: connection, logger: logger)
        let kept = Set(enrollments.map(\.mfaEnrollmentId))
        for (id, kind) in previous.sorted(by: { $0.key < $1.key }) where !kept.contains(id) {
            try await events.record(
                .factorWithdrawn, localId: localId, details: ["kind": kind, "enrollmentId": id], in: schema, on: connection)
        }
        for enrollment in enrollments where previous[enrollment.mfaEnrollmentId] == nil {
            try await events.record(.factorEnrolled, localId: localId, details: Self.details(enrollment), in: schema, on: connection)
        }
    }

    static func replace(
        in schema: TenantSchema, table: SQLText, localId: String, _ enrollments: [Enrollment], connection: PostgresConnection,
        logger: Logger
    ) async throws {
        try await connection.query("DELETE FROM \(sql: table) WHERE local_id = \(localId)", logger: logger)
        for enrollment in enrollments {
            let enrolledAt = EnrollmentTime.parse(enrollment.enrolledAt) ?? Date()
            try await connection.query(
                """
                INSERT INTO \(sql: table) (enrollment_id, local_id, kind, display_name, phone_number, enrolled_at)
                VALUES (\(enrollment.mfaEnrollmentId), \(localId), \(enrollment.kind.rawValue), \(enrollment.displayName),
                        \(enrollment.phoneNumber), \(enrolledAt))
                """,
                logger: logger
            )
        }
    }

    /// `false` when the user has no enrollment with that id. Removing the last factor also removes
    /// the recovery codes that backed it up (each removal recorded).
    func remove(in schema: TenantSchema, localId: String, enrollmentId: String) async throws -> Bool {
        let enrollments = schema.qualified(Self.table)
        let (events, logger) = (self.events, self.logger)
        let recovery = FactorKind.recoveryCode.rawValue
        return try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                DELETE FROM \(sql: enrollments)
                WHERE local_id = \(localId)
                  AND (enrollment_id = \(enrollmentId)
                       OR (kind = \(recovery) AND EXISTS (SELECT 1 FROM \(sql: enrollments)
                                                         WHERE local_id = \(localId) AND enrollment_id = \(enrollmentId))
                           AND NOT EXISTS (SELECT 1 FROM \(sql: enrollments)
                                           WHERE local_id = \(localId) AND kind <> \(recovery) AND enrollment_id <> \(enrollmentId))))
                RETURNING enrollment_id, kind, phone_number
                """,
                logger: logger
            )
            var removed: [HeldFactor] = []
            for try await row in rows.decode(rows: HeldFactor.self) { removed.append(row) }
            guard removed.contains(where: { $0.enrollmentId == enrollmentId }) else { return false }
            for factor in removed {
                try await events.record(
                    .factorWithdrawn, localId: localId, details: ["kind": factor.kind, "enrollmentId": factor.enrollmentId], in: schema,
                    on: connection
                )
            }
            return true
        }
    }

    /// Removes one enrollment on `connection` (a transaction of the caller's, which records it) and
    /// returns it as it was; `nil` when the account has no such enrollment.
    static func remove(
        in schema: TenantSchema, localId: String, enrollmentId: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> Enrollment? {
        let rows = try await connection.query(
            """
            DELETE FROM \(sql: schema.qualified(Self.table)) WHERE local_id = \(localId) AND enrollment_id = \(enrollmentId)
            RETURNING enrollment_id, kind, display_name, phone_number,
                      to_char(enrolled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS enrolled_at
            """,
            logger: logger
        )
        var removed: Enrollment?
        for try await row in rows.decode(rows: StoredEnrollment.self) { removed = row.enrollment ?? removed }
        return removed
    }

    /// An enrollment as stored; `enrollment` is `nil` for a kind this version does not know.
    private struct StoredEnrollment: StatementRow {
        let enrollment: Enrollment?

        init(_ columns: RowColumns) throws {
            guard let kind = FactorKind(rawValue: try columns("kind")) else {
                enrollment = nil
                return
            }
            enrollment = Enrollment(
                mfaEnrollmentId: try columns("enrollment_id"), kind: kind, displayName: try columns("display_name"),
                phoneNumber: try columns("phone_number"), enrolledAt: try columns("enrolled_at"))
        }
    }

    /// Which of `factors` have an enrollment here, of any kind: only a secret with no row at all is
    /// an orphan (``OrphanSecretSweep``).
    func recorded(_ factors: [StoredTOTPFactor], in schema: TenantSchema) async throws -> Set<StoredTOTPFactor> {
        let (localIds, enrollmentIds) = (factors.map(\.localId), factors.map(\.mfaEnrollmentId))
        let rows = try await client.query(
            """
            SELECT e.local_id, e.enrollment_id FROM \(sql: schema.qualified(Self.table)) e
            JOIN unnest(\(localIds)::text[], \(enrollmentIds)::text[]) AS s (local_id, enrollment_id)
              ON e.local_id = s.local_id AND e.enrollment_id = s.enrollment_id
            """,
            logger: logger
        )
        var found: Set<StoredTOTPFactor> = []
        for try await row in rows.decode(rows: EnrollmentKey.self) { found.insert(row.factor) }
        return found
    }

    /// An enrollment's account and id.
    private struct EnrollmentKey: StatementRow {
        let factor: StoredTOTPFactor

        init(_ columns: RowColumns) throws {
            factor = StoredTOTPFactor(localId: try columns("local_id"), mfaEnrollmentId: try columns("enrollment_id"))
        }
    }

    /// An enrollment as the checks before a change read it.
    private struct HeldFactor: StatementRow {
        let enrollmentId: String
        let kind: String
        let phoneNumber: String?

        init(_ columns: RowColumns) throws {
            enrollmentId = try columns("enrollment_id")
            kind = try columns("kind")
            phoneNumber = try columns("phone_number")
        }
    }

    /// What the trail says of a factor: its kind and id, and of a phone only the last two digits.
    static func details(_ enrollment: Enrollment) -> [String: String] {
        var details = ["kind": enrollment.kind.rawValue, "enrollmentId": enrollment.mfaEnrollmentId]
        if let phone = enrollment.phoneNumber { details["phoneEnding"] = String(phone.suffix(2)) }
        return details
    }
}
