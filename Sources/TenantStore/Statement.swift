import Logging
import PostgresNIO

/// One statement as a type of its own, in the shape of PostgresNIO's `PostgresPreparedStatement`:
/// its bound values are its stored properties, ``query(in:)`` is its text with them, and ``Row`` is
/// what one row of its answer is. So a statement can be read, named in a review and tested apart
/// from the flow that runs it, and its row cannot drift from its text unnoticed.
///
/// Unlike PostgresNIO's prepared statements it has no fixed server-side name: the text names the
/// scope's schema, one text per schema, and a named statement per schema per connection would not
/// scale to thousands of tenants. It runs on the pool's ordinary path instead, prepared once per
/// connection by ``StatementCache`` when ``isCached`` (bounded, and only after its text ran once).
public protocol Statement: Sendable {
    associatedtype Row: StatementRow = NoRow

    /// Whether the text may be kept prepared per connection: a hot statement whose bound values
    /// have the same types on every call. Bulk and rare statements run unprepared.
    static var isCached: Bool { get }

    /// The text in `schema` with the statement's values bound.
    func query(in schema: TenantSchema) throws -> CachedQuery
}

extension Statement {
    public static var isCached: Bool { true }
}

/// The row of a statement whose rows are not read (an insert, an update without `RETURNING`).
public struct NoRow: StatementRow {
    public init(_ columns: RowColumns) {}
}

/// The row of a statement that answers one column: its value, whatever the column is called. A
/// row of more columns is an error, so a column added to the statement cannot go unnoticed.
public struct SingleValue<Value: PostgresDecodable & Sendable>: StatementRow {
    public let value: Value

    public init(_ columns: RowColumns) throws {
        value = try columns.only(as: Value.self)
    }
}

extension Database {
    /// Runs `statement` in `schema` on whichever pooled connection is free; its rows, in order.
    @discardableResult
    public func run<S: Statement>(
        _ statement: S, in schema: TenantSchema, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> [S.Row] {
        StatementLedger.ran(S.self)
        let query = try statement.query(in: schema)
        if S.isCached {
            return try await Self.collect(self.query(cached: query, logger: logger, file: file, line: line), as: S.Row.self)
        }
        return try await Self.collect(self.query(query.query, logger: logger, file: file, line: line), as: S.Row.self)
    }

    /// The first row of `statement`'s answer in `schema`; `nil` when it answered none.
    public func first<S: Statement>(
        _ statement: S, in schema: TenantSchema, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> S.Row? {
        try await run(statement, in: schema, logger: logger, file: file, line: line).first
    }

    static func collect<Rows: AsyncSequence, Row: StatementRow>(_ rows: Rows, as: Row.Type) async throws -> [Row]
    where Rows.Element == PostgresRow {
        var answer: [Row] = []
        for try await row in rows.decode(rows: Row.self) { answer.append(row) }
        return answer
    }
}

extension PostgresConnection {
    /// Runs `statement` in `schema` on this connection (inside a transaction, say); its rows, in order.
    @discardableResult
    public func run<S: Statement>(
        _ statement: S, in schema: TenantSchema, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> [S.Row] {
        StatementLedger.ran(S.self)
        let query = try statement.query(in: schema)
        if S.isCached {
            return try await Database.collect(self.query(cached: query, logger: logger, file: file, line: line), as: S.Row.self)
        }
        return try await Database.collect(self.query(query.query, logger: logger, file: file, line: line), as: S.Row.self)
    }

    /// The first row of `statement`'s answer in `schema`; `nil` when it answered none.
    public func first<S: Statement>(
        _ statement: S, in schema: TenantSchema, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> S.Row? {
        try await run(statement, in: schema, logger: logger, file: file, line: line).first
    }
}
