import Contracts
import PostgresNIO
import TenantStore

/// The reads of `account.query` (``AccountQuery``): a filter of ids, normalised emails and numbers,
/// bound as arrays.
extension AccountRepository {
    struct Filter: Sendable {
        let localIds: [String]
        let normalizedEmails: [String]
        let phoneNumbers: [String]
        /// No condition: every account.
        let all: Bool
    }

    /// How many accounts match.
    func count(in schema: TenantSchema, _ filter: Filter) async throws -> Int {
        let rows = try await client.query(
            """
            SELECT count(*)::bigint FROM \(sql: schema.qualified(Self.table))
            WHERE (\(filter.all) OR local_id = ANY(\(filter.localIds)) OR email_normalized = ANY(\(filter.normalizedEmails))
                   OR phone_number = ANY(\(filter.phoneNumbers)))
            """,
            logger: logger
        )
        for try await total in rows.decode(Int64.self) { return Int(total) }
        return 0
    }

    /// A window of the matching accounts, ordered by `column` (a literal of ours) then by id.
    func accounts(
        in schema: TenantSchema, _ filter: Filter, orderBy column: SQLText, descending: Bool, limit: Int, offset: Int
    ) async throws -> [Account] {
        let direction: SQLText = descending ? "DESC" : "ASC"
        let rows = try await client.query(
            """
            SELECT \(sql: Self.columns(schema)) FROM \(sql: schema.qualified(Self.table))
            WHERE (\(filter.all) OR local_id = ANY(\(filter.localIds)) OR email_normalized = ANY(\(filter.normalizedEmails))
                   OR phone_number = ANY(\(filter.phoneNumbers)))
            ORDER BY \(sql: column) \(sql: direction) NULLS LAST, local_id \(sql: direction)
            LIMIT \(limit) OFFSET \(offset)
            """,
            logger: logger
        )
        var found: [Account] = []
        for try await row in rows.decode(rows: Row.self) { found.append(Self.credentials(from: row).account) }
        return found
    }
}
