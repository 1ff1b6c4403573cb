import AuthVocabulary
import Contracts
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Second-factor enrollments in each tenant's schema.
struct EnrollmentRepository: Sendable {
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
        let accounts = schema.qualified("accounts")
        let enrollments = schema.qualified("mfa_enrollments")
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            let locked = try await connection.query(
                cached: "SELECT local_id FROM \(sql: accounts) WHERE local_id = \(localId) FOR UPDATE", logger: logger
            )
            var exists = false
            for try await _ in locked.decode(String.self) { exists = true }
            guard exists else { return .accountMissing }
            let rows = try await connection.query(
                cached: """
                    SELECT enrollment_id, phone_number, kind FROM \(sql: enrollments) WHERE local_id = \(localId)
                    """,
                logger: logger
            )
            var count = 0
            for try await (id, phone, kind) in rows.decode((String, String?, String).self) {
                if id == enrollment.mfaEnrollmentId { return .alreadyAdded }
                if let phone, phone == enrollment.phoneNumber { return .phoneAlreadyEnrolled }
                // A recovery-code set (docs/mfa-policy.md) is not a factor of its own: it does not count
                // against the limit, needs another factor, and goes with the last one.
                if kind != FactorKind.recoveryCode.rawValue { count += 1 }
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
            if revokeSessions {
                try await connection.query(
                    cached: """
                        UPDATE \(sql: accounts) SET valid_since = \(sql: AccountRepository.sessionsEnd)
                        WHERE local_id = \(localId)
                        """,
                    logger: logger
                )
            }
            return .added
        }
    }

    /// Replaces every enrollment of an existing account, in one transaction; `false` when there is
    /// no such account.
    func replace(in schema: TenantSchema, localId: String, _ enrollments: [Enrollment]) async throws -> Bool {
        let accounts = schema.qualified("accounts")
        let table = schema.qualified("mfa_enrollments")
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            let locked = try await connection.query(
                "SELECT local_id FROM \(sql: accounts) WHERE local_id = \(localId) FOR UPDATE", logger: logger
            )
            var exists = false
            for try await _ in locked.decode(String.self) { exists = true }
            guard exists else { return false }
            let before = try await connection.query(
                "SELECT enrollment_id, kind FROM \(sql: table) WHERE local_id = \(localId)", logger: logger
            )
            var previous: [String: String] = [:]
            for try await (id, kind) in before.decode((String, String).self) { previous[id] = kind }
            try await Self.replace(in: schema, table: table, localId: localId, enrollments, connection: connection, logger: logger)
            let kept = Set(enrollments.map(\.mfaEnrollmentId))
            for (id, kind) in previous.sorted(by: { $0.key < $1.key }) where !kept.contains(id) {
                try await events.record(
                    .factorWithdrawn, localId: localId, details: ["kind": kind, "enrollmentId": id], in: schema, on: connection)
            }
            for enrollment in enrollments where previous[enrollment.mfaEnrollmentId] == nil {
                try await events.record(.factorEnrolled, localId: localId, details: Self.details(enrollment), in: schema, on: connection)
            }
            return true
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
        let enrollments = schema.qualified("mfa_enrollments")
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
                RETURNING enrollment_id, kind
                """,
                logger: logger
            )
            var removed: [(String, String)] = []
            for try await row in rows.decode((String, String).self) { removed.append(row) }
            guard removed.contains(where: { $0.0 == enrollmentId }) else { return false }
            for (id, kind) in removed {
                try await events.record(
                    .factorWithdrawn, localId: localId, details: ["kind": kind, "enrollmentId": id], in: schema, on: connection
                )
            }
            return true
        }
    }

    /// What the trail says of a factor: its kind and id, and of a phone only the last two digits.
    static func details(_ enrollment: Enrollment) -> [String: String] {
        var details = ["kind": enrollment.kind.rawValue, "enrollmentId": enrollment.mfaEnrollmentId]
        if let phone = enrollment.phoneNumber { details["phoneEnding"] = String(phone.suffix(2)) }
        return details
    }
}
