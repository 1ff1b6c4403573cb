/// Any JSON value, kept as parsed so that ids and params can be echoed or re-decoded exactly.
///
/// Integers stay integers (`1` is echoed as `1`, not `1.0`), which JSON-RPC `id` echo requires.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The members of an object, or `nil` for any other kind of value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The string, or `nil` for any other kind of value.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension JSONValue: Codable {
    /// For a `JSONValue` inside a `Decodable` message. Each level tries the scalar kinds before the
    /// containers, and each failed try costs a `DecodingError` carrying the coding path, so the depth
    /// is bounded as `JSONParser` bounds it: the cost stays linear. Whole documents go through
    /// `JSONCoding.parse` instead.
    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= JSONParser.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "JSON nested too deeply"))
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

// No ExpressibleByNilLiteral: it would turn `condition ? value : nil` into `.null` instead of an
// absent optional, silently changing what gets encoded.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
