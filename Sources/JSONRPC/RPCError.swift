/// A JSON-RPC error object, thrown by handlers and clients alike.
///
/// `data` may carry `identityToolkitError`: the exact Identity Toolkit error string (for example
/// `TENANT_NOT_FOUND`) that the gateway passes on to its client unchanged.
public struct RPCError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public var code: RPCErrorCode
    public var message: String
    public var data: JSONValue?

    public init(code: RPCErrorCode, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// An application error carrying an Identity Toolkit error string for the gateway.
    public init(code: RPCErrorCode, identityToolkitError: String, message: String? = nil) {
        self.init(
            code: code,
            message: message ?? identityToolkitError,
            data: .object(["identityToolkitError": .string(identityToolkitError)])
        )
    }

    /// The Identity Toolkit error string carried in `data`, if any.
    public var identityToolkitError: String? {
        data?["identityToolkitError"]?.stringValue
    }

    public var description: String { "RPCError(\(code.rawValue): \(message))" }

    public static func parseError(_ detail: String = "Parse error") -> RPCError {
        RPCError(code: .parseError, message: detail)
    }
    public static func invalidRequest(_ detail: String = "Invalid Request") -> RPCError {
        RPCError(code: .invalidRequest, message: detail)
    }
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: .methodNotFound, message: "Method not found", data: .object(["method": .string(method)]))
    }
    public static func invalidParams(_ detail: String) -> RPCError {
        RPCError(code: .invalidParams, message: "Invalid params", data: .object(["detail": .string(detail)]))
    }
    /// Internal failures never carry their cause over the wire: it may hold internals.
    public static func internalError(requestID: String? = nil) -> RPCError {
        RPCError(
            code: .internalError,
            message: "Internal error",
            data: requestID.map { .object(["requestId": .string($0)]) }
        )
    }
    public static func callerNotAllowed(method: String) -> RPCError {
        RPCError(code: .callerNotAllowed, message: "Caller not allowed", data: .object(["method": .string(method)]))
    }
}
