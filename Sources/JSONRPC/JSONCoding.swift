import Foundation

/// The one place that turns bytes into JSON values and typed values into bytes, so every
/// service encodes the same way (sorted keys: stable output for tests and logs).
public enum JSONCoding {
    /// Parses a JSON document in one linear pass with bounded nesting (`JSONParser`), so hostile
    /// `[[[[...` input is refused at once instead of costing the event loop O(depth²).
    public static func parse(_ bytes: some Collection<UInt8>) throws -> JSONValue {
        try JSONParser.parse(bytes)
    }

    public static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// Re-decodes an already parsed value into a typed one (params and results).
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONDecoder().decode(T.self, from: encode(value))
    }

    /// Converts a typed value into a `JSONValue`.
    public static func value(of encodable: some Encodable) throws -> JSONValue {
        try parse(encode(encodable))
    }
}
