/// A request as it goes on the wire (client side).
public struct RPCRequestEnvelope<Params: Encodable & Sendable>: Encodable, Sendable {
    public let jsonrpc = "2.0"
    public var method: String
    public var params: Params
    public var id: RPCID?
    /// Left out when `nil` (``RPCRequestContext``).
    public var context: RPCRequestContext?

    public init(method: String, params: Params, id: RPCID?, context: RPCRequestContext? = nil) {
        self.method = method
        self.params = params
        self.id = id
        self.context = context
    }
}

/// A response as it goes on the wire: exactly one of `result` and `error`.
public struct RPCResponseEnvelope: Codable, Sendable, Hashable {
    public var jsonrpc: String
    public var id: RPCID
    public var result: JSONValue?
    public var error: RPCError?

    public init(id: RPCID, result: JSONValue) {
        self.jsonrpc = "2.0"
        self.id = id
        self.result = result
        self.error = nil
    }

    public init(id: RPCID, error: RPCError) {
        self.jsonrpc = "2.0"
        self.id = id
        self.result = nil
        self.error = error
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        jsonrpc = try container.decode(String.self, forKey: .jsonrpc)
        id = try container.decodeIfPresent(RPCID.self, forKey: .id) ?? .null
        error = try container.decodeIfPresent(RPCError.self, forKey: .error)
        // `"result": null` is a legal result; keep it distinct from an absent member.
        result = container.contains(.result) ? try container.decode(JSONValue.self, forKey: .result) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        if let error {
            try container.encode(error, forKey: .error)
        } else {
            try container.encode(result ?? .null, forKey: .result)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case jsonrpc, id, result, error
    }
}
