import Logging
import PostgresNIO

/// Deletes what a service's ``RetentionRule``s say nothing needs any more, in every schema the
/// rules name. Statements are unprepared on purpose: a pass every minute or hour does not deserve
/// prepared-statement names, which are counted per process.
public struct RetentionSweeper: Sendable {
    public let client: Database
    /// Lists the tenant schemas that exist.
    public let tenants: TenantMigrator
    public let rules: [RetentionRule]
    public let logger: Logger

    /// Rows per statement for an indexed rule.
    public static let batch = 1000

    public init(client: Database, tenants: TenantMigrator, rules: [RetentionRule], logger: Logger) {
        self.client = client
        self.tenants = tenants
        self.rules = rules
        self.logger = logger
    }

    /// One pass over every rule and schema, rules in order; rows deleted per rule's label. A schema
    /// dropped (or not yet migrated) while the pass runs is skipped.
    @discardableResult
    public func sweep() async throws -> [String: Int] {
        var deleted: [String: Int] = [:]
        let tenantSchemas = rules.contains { $0.scope == .tenants } ? try await tenants.existingSchemas() : []
        for rule in rules {
            var count = 0
            for schema in rule.scope == .control ? [TenantSchema.control] : tenantSchemas {
                do {
                    count += try await sweep(rule, in: schema)
                } catch  where TenantSchema.isMissing(error) {
                    continue
                }
            }
            deleted[rule.label] = count
            if count > 0 { logger.debug("retention sweep", metadata: ["rows": "\(rule.label)", "count": "\(count)"]) }
        }
        return deleted
    }

    /// The rule's rows in one schema.
    private func sweep(_ rule: RetentionRule, in schema: TenantSchema) async throws -> Int {
        guard rule.indexed else { return try await delete(rule, in: schema, limit: nil) }
        var total = 0
        while true {
            let deleted = try await delete(rule, in: schema, limit: Self.batch)
            total += deleted
            if deleted < Self.batch { return total }
        }
    }

    /// One statement. Only `qualified(_:)` output and the rule's own column names (literals of our
    /// code) are spliced into the text; the retention and the limit are bind parameters.
    private func delete(_ rule: RetentionRule, in schema: TenantSchema, limit: Int?) async throws -> Int {
        let table = schema.qualified(rule.table)
        let (key, column) = (rule.key, rule.column)
        let seconds = rule.retentionSeconds
        let query: PostgresQuery
        if let limit {
            query = """
                WITH deleted AS (
                    DELETE FROM \(sql: table) WHERE \(sql: key) IN (
                        SELECT \(sql: key) FROM \(sql: table)
                        WHERE \(sql: column) < now() - make_interval(secs => \(seconds)) LIMIT \(limit)
                    )
                    RETURNING 1
                )
                SELECT count(*) FROM deleted
                """
        } else {
            query = """
                WITH deleted AS (
                    DELETE FROM \(sql: table) WHERE \(sql: column) < now() - make_interval(secs => \(seconds))
                    RETURNING 1
                )
                SELECT count(*) FROM deleted
                """
        }
        let rows = try await client.query(query, logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }
}
