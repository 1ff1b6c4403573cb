import PostgresNIO

/// SQL text spliced into a statement as it is, not bound as a value: a schema-qualified table name
/// (``TenantSchema/qualified(_:)``), a column list, a fixed clause. It can be made only from string
/// literals of our own code and other `SQLText`, never from a `String` a request could have
/// shaped, so a splice (`\(sql: …)` in a query) cannot carry input. Values always go in as binds
/// (`\(value)`).
public struct SQLText: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    public let text: String

    public var description: String { text }

    public init(stringLiteral value: StaticString) {
        text = value.description
    }

    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
    }

    /// A name of our own, quoted: PostgreSQL reads it as one identifier whatever it holds.
    public init(identifier: String) {
        text = "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Literal pieces and other `SQLText` only.
    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        public mutating func appendLiteral(_ literal: StaticString) {
            text.append(literal.description)
        }

        public mutating func appendInterpolation(_ fragment: SQLText) {
            text.append(fragment.text)
        }

        /// A number in the text (a fixed limit, an interval in seconds) is no injection.
        public mutating func appendInterpolation(_ number: Int) {
            text.append(String(number))
        }
    }

    /// `fragments` joined by `separator`, e.g. a column list.
    public static func joined(_ fragments: [SQLText], separator: SQLText = ", ") -> SQLText {
        SQLText(text: fragments.map(\.text).joined(separator: separator.text))
    }

    private init(text: String) {
        self.text = text
    }
}

extension PostgresQuery.StringInterpolation {
    /// Splices SQL text of our own into the statement (see ``SQLText``).
    public mutating func appendInterpolation(sql fragment: SQLText) {
        appendInterpolation(unescaped: fragment.text)
    }
}
