import AuthVocabulary
import Foundation
import PostgresNIO
import TenantStore

/// The statements of ``VerificationSessionRepository``, each a type: its values, its text in a
/// schema, its row. Those of a TOTP enrollment are run by ``TOTPFactorRepository``.
extension VerificationSessionRepository {
    // MARK: Every kind

    /// A wrong code: one more attempt on the session (a phone code's, a TOTP enrollment's).
    struct CountAttempt: Statement {
        let key: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "UPDATE \(sql: schema.qualified(VerificationSessionRepository.sessions)) SET attempts = attempts + 1 WHERE session_id = \(key)"
        }
    }

    /// A session used up by a flow that cannot be retried: nothing of it is kept.
    struct DeleteSession: Statement {
        let key: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(VerificationSessionRepository.sessions)) WHERE session_id = \(key)"
        }
    }

    // MARK: Phone codes

    /// A new session for a code sent to `phoneNumber` (the code's hash and salt only).
    struct InsertPhoneSession: Statement {
        let key: String
        let codeHash: [UInt8]
        let salt: [UInt8]
        let phoneNumber: String
        let localId: String
        let purpose: VerificationPurpose
        let expiresAt: Date

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(VerificationSessionRepository.sessions))
            (session_id, kind, code_hash, salt, phone_number, local_id, purpose, expires_at)
            VALUES (\(key), 'phone', \(ByteBuffer(bytes: codeHash)), \(ByteBuffer(bytes: salt)), \(phoneNumber),
                    \(localId), \(purpose.rawValue), \(expiresAt))
            """
        }
    }

    /// Session `key`, locked until the transaction ends, with what the second-factor sign-in
    /// `signInAttempt` finished with ('' finds nothing); no row: no such phone session.
    struct LockPhoneSession: Statement {
        typealias Row = LockedSession
        let key: String
        let signInAttempt: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT code_hash, salt, phone_number, local_id, purpose, expires_at, consumed_at IS NOT NULL AS consumed, attempts,
                   consumed_by, (SELECT proof FROM \(sql: schema.qualified(FinishedSignIns.table))
                                 WHERE attempt = \(signInAttempt) AND expires_at > now()) AS finished_proof
            FROM \(sql: schema.qualified(VerificationSessionRepository.sessions)) WHERE session_id = \(key) AND kind = 'phone' FOR UPDATE
            """
        }
    }

    /// A phone session as ``LockPhoneSession`` reads it.
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

    /// Used up by `attempt`, and kept until it expires so an exact retry is answered again.
    struct MarkPhoneSessionUsed: Statement {
        let key: String
        let attempt: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(VerificationSessionRepository.sessions)) SET consumed_at = now(), consumed_by = \(attempt)
            WHERE session_id = \(key)
            """
        }
    }

    // MARK: TOTP enrollments

    /// A new TOTP enrollment session holding the sealed secret the user is shown.
    struct InsertTOTPEnrollment: Statement {
        let key: String
        let localId: String
        let sealed: Data
        let expiresAt: Date

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(VerificationSessionRepository.sessions))
            (session_id, kind, local_id, secret_sealed, purpose, expires_at)
            VALUES (\(key), 'totp', \(localId), \(ByteBuffer(bytes: sealed)), 'enroll', \(expiresAt))
            """
        }
    }

    /// A TOTP enrollment session as it stands, its row locked until the transaction ends.
    struct LockTOTPEnrollment: Statement {
        typealias Row = TOTPEnrollment
        let key: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT local_id, secret_sealed, expires_at, consumed_at IS NOT NULL AS consumed, attempts, consumed_by, consumed_step
            FROM \(sql: schema.qualified(VerificationSessionRepository.sessions)) WHERE session_id = \(key) AND kind = 'totp' FOR UPDATE
            """
        }
    }

    /// A TOTP enrollment session as ``LockTOTPEnrollment`` reads it.
    struct TOTPEnrollment: StatementRow {
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

    /// A good code: the session used up by `enrollmentId` at `step`, and kept (marked with both)
    /// until it expires, so an exact retry of the enrollment is answered again.
    struct ConsumeTOTPEnrollment: Statement {
        let key: String
        let enrollmentId: String
        let step: Int64

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(VerificationSessionRepository.sessions))
            SET consumed_at = now(), consumed_by = \(enrollmentId), consumed_step = \(step)
            WHERE session_id = \(key)
            """
        }
    }

    // MARK: Phone proofs

    /// A `temporaryProof` of a verified number: a session of kind `proof`, live for `seconds`.
    struct InsertProof: Statement {
        static var isCached: Bool { false }
        let key: String
        let phoneNumber: String
        let seconds: Double

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(VerificationSessionRepository.sessions)) (session_id, kind, phone_number, expires_at)
            VALUES (\(key), 'proof', \(phoneNumber), now() + make_interval(secs => \(seconds)))
            """
        }
    }

    /// Uses up the live proof `key` of `phoneNumber`; no row when there is none.
    struct RedeemProof: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let key: String
        let phoneNumber: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            DELETE FROM \(sql: schema.qualified(VerificationSessionRepository.sessions))
            WHERE session_id = \(key) AND kind = 'proof' AND phone_number = \(phoneNumber) AND expires_at > now()
            RETURNING session_id
            """
        }
    }
}
