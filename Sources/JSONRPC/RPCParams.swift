import Foundation

/// A request's params as the dispatcher holds them: still the request object's bytes, decoded once,
/// straight into the method's `Params` type; or parsed, for params given by position (refused with
/// -32602 by every method, which all take theirs by name).
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

/// The `params` member of a request body, decoded as `Params`.
struct ParamsMember<Params: Decodable>: Decodable {
    var params: Params
}
