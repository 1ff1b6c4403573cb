import PostgresNIO
import TenantStore

/// The statements of ``PasskeyChallenges``, each a type: its values, its text in a schema, its row.
extension PasskeyChallenges {
    /// A challenge stored as its digest, live for `seconds`; its row is when it expires (RFC 3339, UTC).
    struct InsertChallenge: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let digest: [UInt8]
        let purpose: String
        let localId: String
        let seconds: Int

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(PasskeyChallenges.table)) (challenge_hash, purpose, local_id, expires_at)
            VALUES (\(ByteBuffer(bytes: digest)), \(purpose), \(localId), now() + make_interval(secs => \(seconds)))
            RETURNING to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
            """
        }
    }

    /// The challenge with `digest`, deleted by the statement that reads it; no row: unknown.
    struct SpendChallenge: Statement {
        typealias Row = SpentChallenge
        static var isCached: Bool { false }
        let digest: [UInt8]

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            DELETE FROM \(sql: schema.qualified(PasskeyChallenges.table)) WHERE challenge_hash = \(ByteBuffer(bytes: digest))
            RETURNING purpose, local_id, expires_at > now() AS live
            """
        }
    }

    /// A challenge as its redemption deleted it: for which ceremony and user, and whether still live.
    struct SpentChallenge: StatementRow {
        let purpose: String
        let localId: String
        let live: Bool

        init(_ columns: RowColumns) throws {
            purpose = try columns("purpose")
            localId = try columns("local_id")
            live = try columns("live")
        }
    }
}
