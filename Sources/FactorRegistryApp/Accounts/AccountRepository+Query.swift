import Contracts
import PostgresNIO
import TenantStore

/// The reads of `account.query` (``AccountQuery``): a filter of ids, normalised emails and numbers,
/// bound as arrays. Each statement is a type (below).
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
        Int(try await client.first(CountMatching(filter: filter), in: schema, logger: logger)?.value ?? 0)
    }

    /// A window of the matching accounts, ordered by `column` (a literal of ours) then by id.
    func accounts(
        in schema: TenantSchema, _ filter: Filter, orderBy column: SQLText, descending: Bool, limit: Int, offset: Int
    ) async throws -> [Account] {
        let window = MatchingWindow(filter: filter, column: column, descending: descending, limit: limit, offset: offset)
        return try await client.run(window, in: schema, logger: logger).map { Self.credentials(from: $0).account }
    }

    /// How many accounts match `filter`.
    struct CountMatching: Statement {
        typealias Row = SingleValue<Int64>
        static var isCached: Bool { false }
        let filter: Filter

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT count(*)::bigint FROM \(sql: schema.qualified(AccountRepository.table))
            WHERE (\(filter.all) OR local_id = ANY(\(filter.localIds)) OR email_normalized = ANY(\(filter.normalizedEmails))
                   OR phone_number = ANY(\(filter.phoneNumbers)))
            """
        }
    }

    /// A window of the accounts matching `filter`, ordered by `column` (a literal of ours) then by id.
    struct MatchingWindow: Statement {
        typealias Row = AccountRepository.Row
        static var isCached: Bool { false }
        let filter: Filter
        let column: SQLText
        let descending: Bool
        let limit: Int
        let offset: Int

        func query(in schema: TenantSchema) -> CachedQuery {
            let direction: SQLText = descending ? "DESC" : "ASC"
            return """
                SELECT \(sql: AccountRepository.columns(schema)) FROM \(sql: schema.qualified(AccountRepository.table))
                WHERE (\(filter.all) OR local_id = ANY(\(filter.localIds)) OR email_normalized = ANY(\(filter.normalizedEmails))
                       OR phone_number = ANY(\(filter.phoneNumbers)))
                ORDER BY \(sql: column) \(sql: direction) NULLS LAST, local_id \(sql: direction)
                LIMIT \(limit) OFFSET \(offset)
                """
        }
    }
}
