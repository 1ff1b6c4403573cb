import PostgresNIO

/// SQL with bound values, written like a `PostgresQuery`, that PostgreSQL parses and plans once per
/// connection and then reuses (see ``StatementCache``).
///
/// A prepared statement keeps the parameter types of its first call, so every bound value must have
/// the same type on every call. A non-optional Swift value always has its type; a `nil` has none of
/// its own, so an optional is bound as `($n::TYPE)` with its wrapped type's SQL name, and a query with
/// an optional whose type has no known SQL name runs unprepared instead.
public struct CachedQuery: Sendable, ExpressibleByStringInterpolation {
    /// The text and the values, exactly as they would run unprepared.
    public let query: PostgresQuery
    /// `false` when a value's type could not be fixed in the text.
    let isCacheable: Bool

    /// A text assembled around a schema's names at run time (a listing with optional filters),
    /// its values bound in `binds`: never prepared, since each shape is a text of its own.
    public init(assembled sql: SQLText, binds: PostgresBindings) {
        query = PostgresQuery(tenantSQL: sql, binds: binds)
        isCacheable = false
    }

    public init(stringLiteral value: String) {
        query = PostgresQuery(unsafeSQL: value)
        isCacheable = true
    }

    public init(stringInterpolation: StringInterpolation) {
        query = PostgresQuery(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
        isCacheable = stringInterpolation.isCacheable
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql: String
        var binds: PostgresBindings
        var isCacheable = true

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount * 4)
            binds = PostgresBindings(capacity: interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql.append(literal)
        }

        /// Splices SQL text of our own into the statement (see ``SQLText``).
        public mutating func appendInterpolation(sql fragment: SQLText) {
            sql.append(fragment.text)
        }

        public mutating func appendInterpolation<Value: PostgresDynamicTypeEncodable>(_ value: Value) {
            binds.append(value)
            sql.append("$\(binds.count)")
        }

        public mutating func appendInterpolation<Value: PostgresThrowingDynamicTypeEncodable>(_ value: Value) throws {
            try binds.append(value)
            sql.append("$\(binds.count)")
        }

        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) throws {
            if let value {
                try binds.append(value)
            } else {
                binds.appendNull()
            }
            let type = Value.psqlType
            if type != .null, let name = type.knownSQLName {
                sql.append("($\(binds.count)::\(name))")
            } else {
                sql.append("$\(binds.count)")
                isCacheable = false
            }
        }
    }
}
