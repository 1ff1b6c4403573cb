/// A JSON-RPC error code: an open set, so each service adds its own application codes as
/// static constants without touching this module.
///
/// Ranges: the JSON-RPC 2.0 standard codes (-32700, -32600...-32603), implementation errors
/// (-32000...-32099) used by this kit, then one application range per service, declared in
/// `proto-json/errors.json`: factor-registry 1000-1099, challenge-issuer 1100-1199,
/// session-token 1200-1299, gateway 1300-1399.
public struct RPCErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { String(rawValue) }

    /// Invalid JSON was received.
    public static let parseError = RPCErrorCode(-32700)
    /// The JSON sent is not a valid Request object.
    public static let invalidRequest = RPCErrorCode(-32600)
    /// The method does not exist or is not available.
    public static let methodNotFound = RPCErrorCode(-32601)
    /// Invalid method parameters.
    public static let invalidParams = RPCErrorCode(-32602)
    /// Internal JSON-RPC error; the detail is only in the server's log.
    public static let internalError = RPCErrorCode(-32603)

    /// The caller's certificate identity may not call this method.
    public static let callerNotAllowed = RPCErrorCode(-32003)
    /// The request body is larger than the server accepts.
    public static let requestTooLarge = RPCErrorCode(-32004)
    /// A dependency of the service did not answer.
    public static let dependencyUnavailable = RPCErrorCode(-32005)
}
