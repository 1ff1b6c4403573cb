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
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            guard try await AccountRepository.lock(localId, in: schema, on: connection, logger: logger) else { return .accountMissing }
            var count = 0
            for held in try await connection.run(ReadHeld(localId: localId), in: schema, logger: logger) {
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
            try await connection.run(InsertEnrollment(localId: localId, enrollment: enrollment), in: schema, logger: logger)
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
        var previous: [String: String] = [:]
        for held in try await connection.run(ReadHeld(localId: localId), in: schema, logger: logger) {
            previous[held.enrollmentId] = held.kind
        }
        try await Self.replace(in: schema, localId: localId, enrollments, connection: connection, logger: logger)
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
        in schema: TenantSchema, localId: String, _ enrollments: [Enrollment], connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.run(DeleteEnrollmentsOf(localId: localId), in: schema, logger: logger)
        for enrollment in enrollments {
            let enrolledAt = EnrollmentTime.parse(enrollment.enrolledAt) ?? Date()
            try await connection.run(
                InsertGivenEnrollment(localId: localId, enrollment: enrollment, enrolledAt: enrolledAt), in: schema, logger: logger)
        }
    }

    /// `false` when the user has no enrollment with that id. Removing the last factor also removes
    /// the recovery codes that backed it up (each removal recorded).
    func remove(in schema: TenantSchema, localId: String, enrollmentId: String) async throws -> Bool {
        let (events, logger) = (self.events, self.logger)
        return try await client.withTransaction(logger: logger) { connection in
            let removed = try await connection.run(
                RemoveWithRecovery(localId: localId, enrollmentId: enrollmentId), in: schema, logger: logger)
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

    /// Removes one enrollment on `connection` (a transaction of the caller's, which records it), and
    /// with it the recovery codes when it was the account's last factor (as ``remove(in:localId:enrollmentId:)``
    /// does); returns what went, the named enrollment first, or nothing when the account has no such enrollment.
    static func remove(
        in schema: TenantSchema, localId: String, enrollmentId: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Enrollment] {
        let removed = try await connection.run(
            RemoveWithRecovery(localId: localId, enrollmentId: enrollmentId), in: schema, logger: logger
        ).compactMap(\.enrollment)
        guard let named = removed.first(where: { $0.mfaEnrollmentId == enrollmentId }) else { return [] }
        return [named] + removed.filter { $0.mfaEnrollmentId != enrollmentId }
    }

    /// Which of `factors` have an enrollment here, of any kind: only a secret with no row at all is
    /// an orphan (``OrphanSecretSweep``).
    func recorded(_ factors: [StoredTOTPFactor], in schema: TenantSchema) async throws -> Set<StoredTOTPFactor> {
        let (localIds, enrollmentIds) = (factors.map(\.localId), factors.map(\.mfaEnrollmentId))
        let rows = try await client.run(ReadRecorded(localIds: localIds, enrollmentIds: enrollmentIds), in: schema, logger: logger)
        return Set(rows.map(\.factor))
    }

    /// What the trail says of a factor: its kind and id, and of a phone only the last two digits.
    static func details(_ enrollment: Enrollment) -> [String: String] {
        var details = ["kind": enrollment.kind.rawValue, "enrollmentId": enrollment.mfaEnrollmentId]
        if let phone = enrollment.phoneNumber { details["phoneEnding"] = String(phone.suffix(2)) }
        return details
    }
}
