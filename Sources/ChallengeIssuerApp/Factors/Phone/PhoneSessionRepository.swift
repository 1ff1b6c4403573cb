import AuthVocabulary
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// The statements behind ``PhoneVerifications``: SMS verification sessions (`verification_sessions`
/// of kind `phone`) in one tenant schema. A code is stored as its salted hash only.
struct PhoneSessionRepository: Sendable {
    let client: Database
    let logger: Logger

    static let sessions: SQLText = "verification_sessions"

    /// A new session for a code sent to `phoneNumber` (the code's hash and salt only).
    func insert(
        key: String, codeHash: [UInt8], salt: [UInt8], phoneNumber: String, localId: String, purpose: VerificationPurpose, expiresAt: Date,
        in schema: TenantSchema
    ) async throws {
        try await client.query(
            cached: """
                INSERT INTO \(sql: schema.qualified(Self.sessions))
                (session_id, kind, code_hash, salt, phone_number, local_id, purpose, expires_at)
                VALUES (\(key), 'phone', \(ByteBuffer(bytes: codeHash)), \(ByteBuffer(bytes: salt)), \(phoneNumber),
                        \(localId), \(purpose.rawValue), \(expiresAt))
                """,
            logger: logger
        )
    }

    /// Runs `body` in one transaction: a code's check, its session's change and what goes with it.
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> sending Result) async throws -> sending Result {
        try await client.withTransaction(logger: logger, body)
    }

    /// A session as it stands, its row locked by the transaction that read it.
    struct LockedSession: StatementRow {
        let codeHash: ByteBuffer?
        let salt: ByteBuffer?
        let phoneNumber: String?
        let localId: String?
        /// `nil` for a session of another kind (a phone proof), or one whose column holds no purpose.
        let purpose: VerificationPurpose?
        let expiresAt: Date
        let consumed: Bool
        let attempts: Int32
        /// The attempt that used the session, for a flow that can be retried (decision 22).
        let consumedBy: String?
        /// What `signInAttempt` was finished with already, if it was.
        let finishedProof: String?

        init(_ columns: RowColumns) throws {
            codeHash = try columns("code_hash")
            salt = try columns("salt")
            phoneNumber = try columns("phone_number")
            localId = try columns("local_id")
            // A stored purpose that is not one of the three matches no request.
            purpose = try columns("purpose", as: String?.self).flatMap(VerificationPurpose.init(rawValue:))
            expiresAt = try columns("expires_at")
            consumed = try columns("consumed")
            attempts = try columns("attempts")
            consumedBy = try columns("consumed_by")
            finishedProof = try columns("finished_proof")
        }
    }

    /// Session `key`, locked until `connection`'s transaction ends, with what the second-factor
    /// sign-in `signInAttempt` finished with ('' finds nothing); `nil`: no such phone session.
    func lock(key: String, signInAttempt: String, in schema: TenantSchema, on connection: PostgresConnection) async throws
        -> LockedSession?
    {
        let rows = try await connection.query(
            cached: """
                SELECT code_hash, salt, phone_number, local_id, purpose, expires_at, consumed_at IS NOT NULL AS consumed, attempts,
                       consumed_by, (SELECT proof FROM \(sql: schema.qualified(FinishedSignIns.table))
                                     WHERE attempt = \(signInAttempt) AND expires_at > now()) AS finished_proof
                FROM \(sql: schema.qualified(Self.sessions)) WHERE session_id = \(key) AND kind = 'phone' FOR UPDATE
                """,
            logger: logger
        )
        var session: LockedSession?
        for try await row in rows.decode(rows: LockedSession.self) { session = row }
        return session
    }

    /// Used up by `attempt`, and kept until it expires so an exact retry is answered again.
    func markUsed(key: String, by attempt: String, in schema: TenantSchema, on connection: PostgresConnection) async throws {
        try await connection.query(
            cached: """
                UPDATE \(sql: schema.qualified(Self.sessions)) SET consumed_at = now(), consumed_by = \(attempt) WHERE session_id = \(key)
                """,
            logger: logger
        )
    }

    /// Used up by a flow that cannot be retried: nothing of it is kept.
    func delete(key: String, in schema: TenantSchema, on connection: PostgresConnection) async throws {
        try await connection.query(
            cached: "DELETE FROM \(sql: schema.qualified(Self.sessions)) WHERE session_id = \(key)", logger: logger
        )
    }

    /// A wrong code: one more attempt on the session.
    func countAttempt(key: String, in schema: TenantSchema, on connection: PostgresConnection) async throws {
        try await connection.query(
            cached: "UPDATE \(sql: schema.qualified(Self.sessions)) SET attempts = attempts + 1 WHERE session_id = \(key)",
            logger: logger
        )
    }
}

extension PhoneSessionRepository {
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

extension PhoneSessionRepository {
    /// A `temporaryProof` of a verified number (``PhoneProofs``): a session of kind `proof`.
    func insertProof(key: String, phoneNumber: String, lifetime: Duration, in schema: TenantSchema) async throws {
        let seconds = Double(lifetime.components.seconds)
        try await client.query(
            """
            INSERT INTO \(sql: schema.qualified(Self.sessions)) (session_id, kind, phone_number, expires_at)
            VALUES (\(key), 'proof', \(phoneNumber), now() + make_interval(secs => \(seconds)))
            """,
            logger: logger
        )
    }

    /// Uses up the live proof `key` of `phoneNumber`; `false` when there is none.
    func redeemProof(key: String, phoneNumber: String, in schema: TenantSchema) async throws -> Bool {
        let rows = try await client.query(
            """
            DELETE FROM \(sql: schema.qualified(Self.sessions))
            WHERE session_id = \(key) AND kind = 'proof' AND phone_number = \(phoneNumber) AND expires_at > now()
            RETURNING session_id
            """,
            logger: logger
        )
        for try await _ in rows.decode(String.self) { return true }
        return false
    }
}
