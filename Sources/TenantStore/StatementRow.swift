import PostgresNIO

/// One row of a statement's answer as a struct of its own, read by column name: a column added to
/// the statement, or two listed in another order, cannot shift a value into the wrong field, as it
/// could when rows were decoded as positional tuples. A statement names each computed column
/// (`… AS created_at_ms`), and its `Row` reads the same names. `scripts/test.sh` refuses a tuple
/// decoding anywhere in `Sources`.
public protocol StatementRow: Sendable {
    init(_ columns: RowColumns) throws
}

/// The cells of one row by column name.
public struct RowColumns {
    let row: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        self.row = row.makeRandomAccess()
    }

    /// The cell of `name` decoded as `T`; a column the statement did not select is an error, not a
    /// crash (PostgresNIO's own subscript traps).
    public func callAsFunction<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard row.contains(name) else { throw MissingColumn(name: name) }
        return try row[name].decode(T.self, context: .default)
    }

    /// The one cell of a row of one column (``SingleValue``), decoded as `T`; a row of more
    /// columns is an error.
    public func only<T: PostgresDecodable>(as type: T.Type = T.self) throws -> T {
        guard row.count == 1 else { throw MissingColumn(name: "the only column (the row has \(row.count))") }
        return try row[0].decode(T.self, context: .default)
    }
}

/// A `Row` read a column its statement does not select: a statement and its row disagree.
public struct MissingColumn: Error, CustomStringConvertible {
    public let name: String
    public var description: String { "the statement's answer has no column \"\(name)\"" }
}

extension AsyncSequence where Element == PostgresRow {
    /// The rows (of a query, or of a cached one) as `Row` values, each read by column name.
    public func decode<Row: StatementRow>(rows: Row.Type) -> AsyncThrowingMapSequence<Self, Row> {
        map { try Row(RowColumns($0)) }
    }
}
