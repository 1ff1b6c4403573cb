import AuthVocabulary
import Foundation
import PostgresNIO
import TenantStore

/// The statements of ``OOBCodeRepository``, each a type: its values, its text in a schema, its row.
/// They run unprepared, as they always have.
extension OOBCodeRepository {
    /// A new code, stored as its hash, live for `seconds`.
    struct InsertCode: Statement {
        static var isCached: Bool { false }
        let codeHash: ByteBuffer
        let requestType: OOBRequestType
        let localId: String?
        let email: String
        let newEmail: String?
        let enrollmentId: String?
        let phoneNumber: String?
        let emailProved: Bool?
        let seconds: Double

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            INSERT INTO \(sql: schema.qualified(OOBCodeRepository.table))
                (code_hash, request_type, local_id, email, new_email, enrollment_id, phone_number, email_proved, expires_at)
            VALUES (\(codeHash), \(requestType.rawValue), \(localId), \(email), \(newEmail), \(enrollmentId), \(phoneNumber),
                    \(emailProved), now() + make_interval(secs => \(seconds)))
            """
        }
    }

    /// The code with `codeHash`, locked until the transaction ends when `lock`; no row: unknown.
    struct ReadCode: Statement {
        typealias Row = CodeRow
        static var isCached: Bool { false }
        let codeHash: ByteBuffer
        let lock: Bool

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT request_type, local_id, email, new_email, enrollment_id, phone_number, expires_at > now() AS live, created_at, email_proved
            FROM \(sql: schema.qualified(OOBCodeRepository.table)) WHERE code_hash = \(codeHash) \(sql: lock ? "FOR UPDATE" : "")
            """
        }
    }

    /// A code as stored; `stored` is `nil` for a request type this version does not know (only
    /// ``InsertCode`` writes the rows, with a known type, so such a row is no code of ours).
    struct CodeRow: StatementRow {
        let stored: Stored?

        init(_ columns: RowColumns) throws {
            guard let type = OOBRequestType(rawValue: try columns("request_type")) else {
                stored = nil
                return
            }
            stored = Stored(
                requestType: type, localId: try columns("local_id"), email: try columns("email"), newEmail: try columns("new_email"),
                enrollmentId: try columns("enrollment_id"), phoneNumber: try columns("phone_number"), live: try columns("live"),
                createdAt: try columns("created_at"), emailProved: try columns("email_proved")
            )
        }
    }

    /// The code with `codeHash`, used up.
    struct DeleteCode: Statement {
        static var isCached: Bool { false }
        let codeHash: ByteBuffer

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(OOBCodeRepository.table)) WHERE code_hash = \(codeHash)"
        }
    }

    /// Every outstanding code of the account; a row per code removed.
    struct DeleteCodesOf: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(OOBCodeRepository.table)) WHERE local_id = \(localId) RETURNING request_type"
        }
    }
}
