import JSONRPC

/// An error as the Identity Toolkit API answers it: `{"error": {"code", "message", "errors": [...], "status"}}`.
///
/// The message strings are part of the wire contract (clients split `CODE : detail` on `" : "`),
/// so every error the gateway returns is built here, never ad hoc.
public struct IdentityToolkitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status, also sent as `error.code`.
    public let httpStatus: Int
    /// The business error's code (`nil` for the HTTP-level errors: payload, API key, 404, 5xx).
    public let code: Code?
    public let message: String
    /// The gRPC-style status (`INVALID_ARGUMENT`, …); absent on business errors.
    public let status: String?
    public let reason: String
    public let extraErrorFields: [String: JSONValue]

    public init(httpStatus: Int, message: String, status: String?, reason: String, extraErrorFields: [String: JSONValue] = [:]) {
        self.httpStatus = httpStatus
        self.code = nil
        self.message = message
        self.status = status
        self.reason = reason
        self.extraErrorFields = extraErrorFields
    }

    public var description: String { "\(httpStatus) \(message)" }

    /// The response body.
    public var envelope: JSONValue {
        var item: [String: JSONValue] = ["message": .string(message), "reason": .string(reason), "domain": "global"]
        item.merge(extraErrorFields) { _, new in new }
        var error: [String: JSONValue] = [
            "code": .int(Int64(httpStatus)), "message": .string(message), "errors": .array([.object(item)]),
        ]
        if let status { error["status"] = .string(status) }
        return .object(["error": .object(error)])
    }

    /// A business error (`CODE` or `CODE : detail`): HTTP 400, no status, reason `invalid`.
    public init(_ code: Code, detail: String? = nil) {
        self.httpStatus = 400
        self.code = code
        self.message = detail.map { "\(code.rawValue) : \($0)" } ?? code.rawValue
        self.status = nil
        self.reason = "invalid"
        self.extraErrorFields = [:]
    }

    /// The business error a peer sent as its wire message (`CODE` or `CODE : detail`). Every peer
    /// builds its message from the catalogue; one that did not still reaches the client as the 400
    /// it was meant to be, without a code to compare.
    public init(businessMessage message: String) {
        let parts = message.split(separator: " : ", maxSplits: 1, omittingEmptySubsequences: false)
        if let code = Code(rawValue: String(parts[0])) {
            self.init(code, detail: parts.count > 1 ? String(parts[1]) : nil)
        } else {
            self.init(httpStatus: 400, message: message, status: nil, reason: "invalid")
        }
    }

    /// A schema or JSON error: HTTP 400 `INVALID_ARGUMENT`; the message starts `Invalid JSON payload received.`
    public static func invalidPayload(_ detail: String, reason: String = "invalid") -> IdentityToolkitError {
        IdentityToolkitError(
            httpStatus: 400, message: "Invalid JSON payload received. \(detail)", status: "INVALID_ARGUMENT", reason: reason
        )
    }

    public static let missingAPIKey = IdentityToolkitError(
        httpStatus: 403, message: "The request is missing a valid API key.", status: "PERMISSION_DENIED", reason: "forbidden"
    )

    public static let invalidAPIKey = IdentityToolkitError(
        httpStatus: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT",
        reason: "badRequest"
    )

    public static let invalidCredentials = IdentityToolkitError(
        httpStatus: 401,
        message: """
            Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid \
            authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.
            """,
        status: "UNAUTHENTICATED",
        reason: "authError",
        extraErrorFields: [
            "message": "Invalid Credentials", "location": "Authorization", "locationType": "header",
        ]
    )

    public static let notFound = IdentityToolkitError(httpStatus: 404, message: "Not Found", status: "NOT_FOUND", reason: "notFound")

    public static let payloadTooLarge = IdentityToolkitError(
        httpStatus: 413, message: "Invalid JSON payload received. Request body too large.", status: "INVALID_ARGUMENT",
        reason: "invalid"
    )

    public static func notImplemented(_ operationId: String) -> IdentityToolkitError {
        IdentityToolkitError(
            httpStatus: 501, message: "\(operationId) is not implemented.", status: "NOT_IMPLEMENTED", reason: "unimplemented"
        )
    }

    /// A 501 whose message the contract gives word for word (`androidVerificationProof is unsupported!`).
    public static func unsupported(_ message: String) -> IdentityToolkitError {
        IdentityToolkitError(httpStatus: 501, message: message, status: "NOT_IMPLEMENTED", reason: "unimplemented")
    }

    /// A dependency of the gateway did not answer: retrying later may work.
    public static let unavailable = IdentityToolkitError(
        httpStatus: 503, message: "The service is currently unavailable.", status: "UNAVAILABLE", reason: "backendError"
    )

    /// A failure on our side: the message never carries internals.
    public static func internalError(requestID: String) -> IdentityToolkitError {
        IdentityToolkitError(
            httpStatus: 500, message: "INTERNAL_ERROR : request \(requestID)", status: "INTERNAL", reason: "backendError"
        )
    }
}
