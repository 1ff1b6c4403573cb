import Foundation
import PostgresNIO
import TenantStore

/// The statements of ``PasskeyRepository``, each a type: its values, its text in a schema, its row.
/// They run unprepared, as they always have.
extension PasskeyRepository {
    /// How many passkeys the account has.
    struct CountPasskeys: Statement {
        typealias Row = SingleValue<Int64>
        static var isCached: Bool { false }
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT count(*) FROM \(sql: schema.qualified(PasskeyRepository.table)) WHERE local_id = \(localId)"
        }
    }

    /// A new passkey of the account; a unique violation (`passkeys_pkey`) when the credential id is taken.
    struct InsertPasskey: Statement {
        static var isCached: Bool { false }
        let credential: Stored
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(PasskeyRepository.table))
                (credential_id, local_id, public_key, algorithm, sign_count, name, aaguid, backup_eligible, backed_up)
            VALUES (\(ByteBuffer(bytes: credential.credentialId)), \(localId), \(ByteBuffer(bytes: credential.publicKey)),
                    \(credential.algorithm), \(credential.signCount), \(credential.name), \(ByteBuffer(bytes: credential.aaguid)),
                    \(credential.backupEligible), \(credential.backedUp))
            """
        }
    }

    /// The passkey with `credentialId`, and its account; no row: none.
    struct FindPasskey: Statement {
        typealias Row = FoundRow
        static var isCached: Bool { false }
        let credentialId: [UInt8]

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT local_id, credential_id, public_key, algorithm, sign_count, name, aaguid, backup_eligible, backed_up
            FROM \(sql: schema.qualified(PasskeyRepository.table)) WHERE credential_id = \(ByteBuffer(bytes: credentialId))
            """
        }
    }

    /// The counter set to `next` only from `previous`, the value the sign-in was checked against.
    struct RecordUse: Statement {
        typealias Row = UseCounts
        static var isCached: Bool { false }
        let credentialId: [UInt8]
        let previous: Int64
        let next: Int64

        func query(in schema: TenantSchema) -> CachedQuery {
            let table = schema.qualified(PasskeyRepository.table)
            return """
                WITH found AS (SELECT credential_id, sign_count FROM \(sql: table) WHERE credential_id = \(ByteBuffer(bytes: credentialId))),
                     moved AS (
                         UPDATE \(sql: table) p SET sign_count = \(next), last_used_at = now()
                         FROM found WHERE p.credential_id = found.credential_id AND found.sign_count = \(previous)
                         RETURNING p.credential_id)
                SELECT (SELECT count(*) FROM found) AS found, (SELECT count(*) FROM moved) AS moved
                """
        }
    }

    /// How many passkeys had the credential id, and how many of those moved their counter.
    struct UseCounts: StatementRow {
        let found: Int64
        let moved: Int64

        init(_ columns: RowColumns) throws {
            found = try columns("found")
            moved = try columns("moved")
        }
    }

    /// The account's passkeys among the credential ids (hex); a row per passkey removed.
    struct RemovePasskeys: Statement {
        typealias Row = SingleValue<ByteBuffer>
        static var isCached: Bool { false }
        let localId: String
        let hexCredentialIds: [String]

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            DELETE FROM \(sql: schema.qualified(PasskeyRepository.table)) WHERE local_id = \(localId)
            AND credential_id IN (SELECT decode(id, 'hex') FROM unnest(\(hexCredentialIds)::text[]) AS id)
            RETURNING credential_id
            """
        }
    }

    /// One row when the account has the passkey.
    struct OwnsPasskey: Statement {
        typealias Row = SingleValue<Int32>
        static var isCached: Bool { false }
        let credentialId: [UInt8]
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT 1 FROM \(sql: schema.qualified(PasskeyRepository.table))
            WHERE credential_id = \(ByteBuffer(bytes: credentialId)) AND local_id = \(localId)
            """
        }
    }

    /// One of the account's passkeys; a row when it was still there.
    struct RemovePasskey: Statement {
        typealias Row = SingleValue<Int32>
        static var isCached: Bool { false }
        let credentialId: [UInt8]
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            DELETE FROM \(sql: schema.qualified(PasskeyRepository.table))
            WHERE credential_id = \(ByteBuffer(bytes: credentialId)) AND local_id = \(localId) RETURNING 1
            """
        }
    }

    /// Every passkey of the account, or those added at or after `since`; a row per passkey removed.
    struct RemoveAllPasskeys: Statement {
        typealias Row = SingleValue<Int32>
        static var isCached: Bool { false }
        let localId: String
        let since: Date?

        func query(in schema: TenantSchema) -> CachedQuery {
            let table = schema.qualified(PasskeyRepository.table)
            if let since {
                return "DELETE FROM \(sql: table) WHERE local_id = \(localId) AND created_at >= \(since) RETURNING 1"
            }
            return "DELETE FROM \(sql: table) WHERE local_id = \(localId) RETURNING 1"
        }
    }

    /// The passkeys of the accounts, the oldest first.
    struct ListPasskeys: Statement {
        typealias Row = ListedRow
        static var isCached: Bool { false }
        let localIds: [String]

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT local_id, credential_id, name FROM \(sql: schema.qualified(PasskeyRepository.table))
            WHERE local_id = ANY(\(localIds)) ORDER BY created_at, credential_id
            """
        }
    }
}
