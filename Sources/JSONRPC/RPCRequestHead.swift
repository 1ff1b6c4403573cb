import Foundation

/// A request's params as the dispatcher holds them: already parsed (batches, the general path), or
/// still the request's bytes, decoded once, straight into the method's `Params` type.
enum RPCParams: Sendable {
    case parsed(JSONValue)
    /// The whole request body; `keys` are the names in its `params` object, `nil` when it has none.
    case encoded(Data, keys: [String]?)
}

extension RPCParams {
    /// The params as `P`; a decoding failure is -32602 with a path relative to the params.
    func decode<P: Decodable>(_ type: P.Type) throws -> P {
        do {
            switch self {
            case .parsed(let value): return try JSONCoding.decode(P.self, from: value)
            // No params member means `{}`, as on the general path.
            case .encoded(_, keys: nil): return try JSONDecoder().decode(P.self, from: Data("{}".utf8))
            case .encoded(let bytes, keys: _?): return try JSONDecoder().decode(ParamsMember<P>.self, from: bytes).params
            }
        } catch let error as DecodingError {
            throw RPCError.invalidParams(DecodingErrorDescription.describe(error, droppingLeading: wrapperDepth))
        }
    }

    /// Path components a decoding error carries before the params' own: the `params` member.
    private var wrapperDepth: Int {
        if case .encoded(_, keys: _?) = self { return 1 }
        return 0
    }
}

/// The members of a single request object that the dispatcher needs before choosing a method: read
/// without building a tree of the params. ``read(_:)`` accepts only a well-formed request (an object
/// with `"jsonrpc": "2.0"`, a string `method`, a legal or absent `id`, an object or absent
/// `params`); for anything else it returns `nil` and the general path answers with the right error.
struct RequestHead: Decodable {
    var id: RPCID?
    var method: String
    var paramKeys: [String]?

    static func read(_ bytes: Data) -> RequestHead? {
        guard bytes.first(where: { !Self.isWhitespace($0) }) == UInt8(ascii: "{") else { return nil }
        // Foundation's decoder takes what JSONParser refuses (invalid UTF-8 and raw control characters
        // in strings, member names given twice: the fuzz target FuzzRPCEnvelope found the first two),
        // so both paths accept exactly JSONParser's documents: the body is checked by it first (a few
        // microseconds for an RPC body), and anything it refuses takes the general path, which says why.
        guard (try? JSONParser.parse(bytes)) != nil else { return nil }
        return try? JSONDecoder().decode(RequestHead.self, from: bytes)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard try container.decode(String.self, forKey: .jsonrpc) == "2.0" else { throw Refused() }
        method = try container.decode(String.self, forKey: .method)
        // An absent id makes a notification; a present `null` is an id to echo.
        if container.contains(.id) {
            id = try container.decodeNil(forKey: .id) ? .null : container.decode(RPCID.self, forKey: .id)
        }
        if container.contains(.params) {
            paramKeys = try container.decode(MemberNames.self, forKey: .params).names
        }
    }

    private enum CodingKeys: String, CodingKey {
        case jsonrpc, id, method, params
    }

    private struct Refused: Error {}

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// The member names of a JSON object, without decoding its values (fails for any other value).
struct MemberNames: Decodable {
    var names: [String]

    init(from decoder: any Decoder) throws {
        names = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// The `params` member of a request body, decoded as `Params`.
struct ParamsMember<Params: Decodable>: Decodable {
    var params: Params
}
