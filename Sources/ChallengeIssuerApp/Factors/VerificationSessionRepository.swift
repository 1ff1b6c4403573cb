import AuthVocabulary
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// The owner of `verification_sessions` in one tenant schema: the sessions of an SMS code sent
/// (kind `phone`, behind ``PhoneVerifications``; a code is stored as its salted hash only), of a
/// TOTP enrollment (kind `totp`, whose statements ``TOTPFactorRepository`` runs in its own
/// transaction beside the factor it stores), and a verified number's `temporaryProof` (kind
/// `proof`, ``PhoneProofs``). Each statement is a type (`VerificationSessionRepository+Statements.swift`).
struct VerificationSessionRepository: Sendable {
    let client: Database
    let logger: Logger

    static let sessions: SQLText = "verification_sessions"

    // MARK: Phone codes

    /// A new session for a code sent to `phoneNumber` (the code's hash and salt only).
    func insert(
        key: String, codeHash: [UInt8], salt: [UInt8], phoneNumber: String, localId: String, purpose: VerificationPurpose, expiresAt: Date,
        in schema: TenantSchema
    ) async throws {
        try await client.run(
            InsertPhoneSession(
                key: key, codeHash: codeHash, salt: salt, phoneNumber: phoneNumber, localId: localId, purpose: purpose,
                expiresAt: expiresAt),
            in: schema, logger: logger)
    }

    /// Runs `body` in one transaction: a code's check, its session's change and what goes with it.
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> sending Result) async throws -> sending Result {
        try await client.withTransaction(logger: logger, body)
    }

    /// Session `key`, locked until `connection`'s transaction ends, with what the second-factor
    /// sign-in `signInAttempt` finished with ('' finds nothing); `nil`: no such phone session.
    func lock(key: String, signInAttempt: String, in schema: TenantSchema, on connection: PostgresConnection) async throws
        -> LockedSession?
    {
        try await connection.first(LockPhoneSession(key: key, signInAttempt: signInAttempt), in: schema, logger: logger)
    }

    /// Used up by `attempt`, and kept until it expires so an exact retry is answered again.
    func markUsed(key: String, by attempt: String, in schema: TenantSchema, on connection: PostgresConnection) async throws {
        try await connection.run(MarkPhoneSessionUsed(key: key, attempt: attempt), in: schema, logger: logger)
    }

    /// Used up by a flow that cannot be retried: nothing of it is kept.
    func delete(key: String, in schema: TenantSchema, on connection: PostgresConnection) async throws {
        try await connection.run(DeleteSession(key: key), in: schema, logger: logger)
    }

    /// A wrong code: one more attempt on the session.
    func countAttempt(key: String, in schema: TenantSchema, on connection: PostgresConnection) async throws {
        try await connection.run(CountAttempt(key: key), in: schema, logger: logger)
    }

    // MARK: Phone proofs

    /// A `temporaryProof` of a verified number (``PhoneProofs``): a session of kind `proof`.
    func insertProof(key: String, phoneNumber: String, lifetime: Duration, in schema: TenantSchema) async throws {
        try await client.run(
            InsertProof(key: key, phoneNumber: phoneNumber, seconds: Double(lifetime.components.seconds)), in: schema, logger: logger)
    }

    /// Uses up the live proof `key` of `phoneNumber`; `false` when there is none.
    func redeemProof(key: String, phoneNumber: String, in schema: TenantSchema) async throws -> Bool {
        try await client.first(RedeemProof(key: key, phoneNumber: phoneNumber), in: schema, logger: logger) != nil
    }

    // MARK: Retention

    /// An expired verification session (SMS, TOTP enrollment) answers `SESSION_EXPIRED`; it is kept
    /// `retention` past its expiry for that, then it is unknown (`INVALID_SESSION_INFO`). A used
    /// session answers like an unknown one; it is deleted when used, or, when a flow that can be
    /// retried used it (`consumed_by`), kept until this rule removes it.
    static func expiredSessions(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "expired verification sessions", table: Self.sessions, key: "session_id", column: "expires_at",
            retention: retention, indexed: true
        )
    }
}
