/// A request id: a string, a number or null, echoed byte-for-byte in the response.
public enum RPCID: Sendable, Hashable, Codable {
    case string(String)
    case int(Int64)
    case double(Double)
    case null

    /// Reads an id from a parsed member; `nil` when the value is not a legal id (object, array, bool).
    public init?(_ value: JSONValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .null: self = .null
        default: return nil
        }
    }

    public var jsonValue: JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .int(let number): .int(number)
        case .double(let number): .double(number)
        case .null: .null
        }
    }

    public init(from decoder: any Decoder) throws {
        guard let id = RPCID(try JSONValue(from: decoder)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "Invalid id"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}
