import PostgresNIO

/// The only door through which a schema name reaches SQL.
///
/// A schema name is derived from a validated project or tenant id, never taken from input as is:
/// project-level data lives in `p_<projectId>`, a tenant's in `t_<tenantId>`. Ids are checked
/// against a strict alphabet, so the quoted identifier can never break out of its quotes, and
/// `qualified(_:)` is the only API that splices it into SQL.
public struct TenantSchema: Sendable, Hashable, CustomStringConvertible {
    /// The schema name, unquoted (for bind parameters and catalog look-ups).
    public let name: String
    /// Whose data the schema holds.
    public let owner: Owner

    public enum Owner: Sendable, Hashable {
        case project(String)
        case tenant(String)
        /// The service's own tables that belong to no tenant (for example the tenant registry).
        case service
    }

    /// The schema of a service's own, tenant-independent tables.
    public static let control = TenantSchema(name: "control", owner: .service)

    private init(name: String, owner: Owner) {
        self.name = name
        self.owner = owner
    }

    /// Project ids: lower-case letters, digits and hyphens, 1-40 characters, not starting with a hyphen.
    public static func isValidProjectID(_ id: String) -> Bool {
        id.utf8.count <= 40 && matches(id, first: isLowerAlnum, rest: { isLowerAlnum($0) || $0 == UInt8(ascii: "-") })
    }

    /// Tenant ids: ASCII letters, digits and hyphens, 1-48 characters, not starting with a hyphen.
    public static func isValidTenantID(_ id: String) -> Bool {
        id.utf8.count <= 48 && matches(id, first: isAlnum, rest: { isAlnum($0) || $0 == UInt8(ascii: "-") })
    }

    /// - Throws: ``TenantStoreError/invalidScope`` when an id is not of the accepted form.
    public init(projectId: String, tenantId: String? = nil) throws {
        guard Self.isValidProjectID(projectId) else { throw TenantStoreError.invalidScope }
        if let tenantId {
            guard Self.isValidTenantID(tenantId) else { throw TenantStoreError.invalidScope }
            name = "t_" + tenantId
            owner = .tenant(tenantId)
        } else {
            name = "p_" + projectId
            owner = .project(projectId)
        }
    }

    /// Reads back a schema name found in the catalog; `nil` when it is not one of ours.
    public init?(schemaName: String) {
        let id = String(schemaName.dropFirst(2))
        if schemaName.hasPrefix("p_"), Self.isValidProjectID(id) {
            owner = .project(id)
        } else if schemaName.hasPrefix("t_"), Self.isValidTenantID(id) {
            owner = .tenant(id)
        } else {
            return nil
        }
        name = schemaName
    }

    /// The schema's name as SQL reads it (checked ids only, quoted).
    public var quoted: SQLText { SQLText(identifier: name) }

    /// A schema-qualified table name for SQL text, e.g. `"t_abc".accounts`. `table` is a literal
    /// from our own code, never input.
    public func qualified(_ table: SQLText) -> SQLText {
        "\(quoted).\(table)"
    }

    public var description: String { name }

    /// Whether `error` says a statement named a table that is not there: `undefined_table` (42P01)
    /// or `invalid_schema_name` (3F000), also inside a transaction's error. The schema was never
    /// provisioned, was dropped meanwhile, or is not migrated yet.
    public static func isMissing(_ error: any Error) -> Bool {
        if let transaction = error as? TransactionError, let cause = transaction.closureError {
            return isMissing(cause)
        }
        guard let state = (error as? PSQLError)?.serverInfo?[.sqlState] else { return false }
        return state == "42P01" || state == "3F000"
    }

    private static func matches(_ id: String, first: (UInt8) -> Bool, rest: (UInt8) -> Bool) -> Bool {
        var bytes = id.utf8.makeIterator()
        guard let head = bytes.next(), first(head) else { return false }
        while let byte = bytes.next() {
            guard rest(byte) else { return false }
        }
        return true
    }

    private static func isLowerAlnum(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isAlnum(_ byte: UInt8) -> Bool {
        isLowerAlnum(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}

extension PostgresQuery {
    /// SQL text built around a tenant schema's qualified names (``SQLText``: literals of our own
    /// code); values still go in as binds through `binds`.
    public init(tenantSQL sql: SQLText, binds: PostgresBindings = PostgresBindings()) {
        self.init(unsafeSQL: sql.text, binds: binds)
    }
}
