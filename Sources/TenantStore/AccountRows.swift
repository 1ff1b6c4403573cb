import Logging
import PostgresNIO

/// Rows that belong to accounts, in tables with a `local_id` column: what a service deletes when
/// factor-registry deletes the accounts.
public enum AccountRows {
    /// Deletes the rows of `localIds` (of every account when `nil`) from `tables`, in one statement;
    /// how many rows went. A schema never provisioned here holds nothing: 0.
    public static func delete(
        from tables: [SQLText], in schema: TenantSchema, localIds: [String]?, client: Database, logger: Logger
    ) async throws -> Int {
        let (all, ids) = (localIds == nil, localIds ?? [])
        // Only `qualified(_:)` output and our own CTE names are spliced into the text; the ids are
        // bind parameters, each table's `$1`/`$2` pair bound again.
        var query = PostgresQuery(stringLiteral: "WITH ")
        for (index, table) in tables.enumerated() {
            if index > 0 { query.sql += ", " }
            query.sql += "d\(index) AS (DELETE FROM \(schema.qualified(table).text) WHERE $1 OR local_id = ANY($2) RETURNING 1)"
        }
        query.sql += " SELECT " + tables.indices.map { "(SELECT count(*) FROM d\($0))" }.joined(separator: " + ")
        try query.binds.append(all, context: .default)
        try query.binds.append(ids, context: .default)
        do {
            let rows = try await client.query(query, logger: logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        } catch  where TenantSchema.isMissing(error) {
            return 0
        }
    }
}
