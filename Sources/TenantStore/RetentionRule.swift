/// Rows of one table that nothing needs any more: those whose `column` lies more than `retention`
/// in the past. A row whose column is NULL never qualifies (a token not rotated, a session not
/// revoked).
public struct RetentionRule: Sendable {
    /// Which schemas hold the table.
    public enum Scope: Sendable {
        /// Every tenant schema (`p_…`, `t_…`).
        case tenants
        /// The service's own schema, `control`.
        case control
    }

    /// What the rows are, for logs ("expired verification sessions").
    public let label: String
    public let scope: Scope
    public let table: SQLText
    /// The primary key, which batched deletes select by.
    public let key: SQLText
    /// The `timestamptz` column whose age decides.
    public let column: SQLText
    public let retention: Duration
    /// Whether an index leads with `column`. With one, rows go 1,000 per statement (short
    /// transactions however much is due); without one each batch would scan the table again, so
    /// they go in one statement per schema (one scan).
    public let indexed: Bool

    public init(
        _ label: String, scope: Scope = .tenants, table: SQLText, key: SQLText, column: SQLText,
        retention: Duration, indexed: Bool
    ) {
        self.label = label
        self.scope = scope
        self.table = table
        self.key = key
        self.column = column
        self.retention = retention
        self.indexed = indexed
    }

    /// The retention in seconds, as PostgreSQL's `make_interval` takes it.
    var retentionSeconds: Double {
        let (seconds, attoseconds) = retention.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
