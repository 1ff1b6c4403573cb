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
        let (events, logger) = (self.events, self.logger)
        return try await client.withTransaction(logger: logger) { connection -> Bool? in
            let existing = try await connection.first(LockSetOwner(enrollmentId: enrollmentId), in: schema, logger: logger)?.value
            if let existing, existing != localId { return nil }
            try await connection.run(DeleteSet(enrollmentId: enrollmentId), in: schema, logger: logger)
            try await connection.run(InsertSet(enrollmentId: enrollmentId, localId: localId), in: schema, logger: logger)
            try await connection.run(
                InsertCodes(enrollmentId: enrollmentId, localId: localId, hexHashes: hex), in: schema, logger: logger)
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
        let (events, finished, logger) = (self.events, self.finished, self.logger)
        do {
            return try await client.withTransaction(logger: logger) { connection -> Redemption in
                let state = LockSetState(enrollmentId: enrollmentId, localId: localId, attempt: attempt, limits: limits)
                guard let found = try await connection.first(state, in: schema, logger: logger) else { return .missing }
                if let finishedProof = found.finishedProof { return .finishedBefore(FinishedSignIns.Proof(text: finishedProof)) }
                if found.throttled { return .throttled }
                let accepted =
                    try await connection.first(
                        UseCode(enrollmentId: enrollmentId, localId: localId, hash: hash), in: schema, logger: logger) != nil
                if accepted {
                    try await connection.run(ClearFailures(enrollmentId: enrollmentId), in: schema, logger: logger)
                    if !attempt.isEmpty { try await finished.record(attempt, proof: proof, in: schema, on: connection) }
                } else {
                    try await connection.run(CountFailure(enrollmentId: enrollmentId, limits: limits), in: schema, logger: logger)
                }
                try await events.record(
                    accepted ? .secondFactorSucceeded : .secondFactorFailed, localId: localId,
                    details: ["kind": FactorKind.recoveryCode.rawValue, "enrollmentId": enrollmentId], in: schema, on: connection
                )
                guard accepted else { return .rejected }
                let remaining = try await connection.first(CountUnused(enrollmentId: enrollmentId), in: schema, logger: logger)?.value
                return .accepted(remaining: Int(remaining ?? 0))
            }
        } catch  where UniqueViolation.matches(error) {
            // Another success of the same pending credential committed first.
            return .finishedBefore(try await finished.proof(of: attempt, in: schema))
        }
    }

    /// The set's unused codes and when it was made; `nil`: no such set of this user.
    func unused(enrollmentId: String, localId: String, in schema: TenantSchema) async throws -> (remaining: Int, generatedAt: Date)? {
        try await client.first(ReadUnused(enrollmentId: enrollmentId, localId: localId), in: schema, logger: logger).map {
            (Int($0.remaining), $0.generatedAt)
        }
    }

    /// The set of a withdrawn enrollment (DeleteTOTPFactor names either kind).
    func delete(enrollmentId: String, localId: String, in schema: TenantSchema) async throws {
        try await client.run(DeleteUserSet(enrollmentId: enrollmentId, localId: localId), in: schema, logger: logger)
    }
}
