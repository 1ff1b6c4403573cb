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
struct RequestHead {
    var id: RPCID?
    var method: String
    var paramKeys: [String]?

    /// Read from the tree `JSONParser` builds, which is also the check that both paths accept
    /// exactly JSONParser's documents (Foundation's decoder takes what it refuses: invalid UTF-8 and
    /// raw control characters in strings, member names given twice; the fuzz target FuzzRPCEnvelope
    /// found the first two). The params are then decoded once, from the bytes, into their type.
    static func read(_ bytes: Data) -> RequestHead? {
        guard bytes.first(where: { !Self.isWhitespace($0) }) == UInt8(ascii: "{"),
            case .object(let members)? = try? JSONParser.parse(bytes),
            members["jsonrpc"] == .string("2.0"), case .string(let method)? = members["method"]
        else { return nil }
        var head = RequestHead(method: method)
        // An absent id makes a notification; a present `null` is an id to echo.
        if let member = members["id"] {
            guard let id = RPCID(member) else { return nil }
            head.id = id
        }
        if let params = members["params"] {
            guard case .object(let fields) = params else { return nil }
            head.paramKeys = Array(fields.keys)
        }
        return head
    }

    private init(method: String) {
        self.method = method
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// The `params` member of a request body, decoded as `Params`.
struct ParamsMember<Params: Decodable>: Decodable {
    var params: Params
}
