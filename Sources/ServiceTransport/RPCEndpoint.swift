import Foundation
import HTTPTypes
import Hummingbird
import JSONRPC
import Logging
import NIOCore
import Tracing

/// `POST /rpc`, whatever carries it (``RPCListener``: an HTTP/2 stream, or HTTP/1.1 for tools):
/// checks the content type, identifies the caller from its client certificate, refuses a caller
/// that declares another deployment mode, and hands the body to the ``RPCDispatcher``. Every
/// failure is a JSON-RPC error body with a 4xx status, never a crash. Every answer states this
/// service's mode (``DeploymentMode/header``).
public struct RPCEndpoint: Sendable {
    let dispatcher: RPCDispatcher
    let maximumBodyBytes: Int
    let mode: DeploymentMode
    /// Callers must carry their service identity URI (``PeerIdentity``).
    let requireIdentity: Bool
    let logger: Logger

    public init(
        dispatcher: RPCDispatcher, maximumBodyBytes: Int, mode: DeploymentMode, requireIdentity: Bool = true,
        logger: Logger = Logger(label: "rpc")
    ) {
        self.dispatcher = dispatcher
        self.maximumBodyBytes = maximumBodyBytes
        self.mode = mode
        self.requireIdentity = requireIdentity
        self.logger = logger
    }

    /// What the endpoint answers: a status and, but for a notification's, a JSON body.
    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var body: ByteBuffer?
    }

    /// - Parameter caller: the common name of the connection's verified client certificate, `nil`
    ///   when it carries none that names a service (``PeerIdentity``).
    func answer(_ head: HTTPRequest, body: ByteBuffer, caller: String?) async -> Answer {
        // Decision 16. A call that declares no mode comes from a tool (curl, an older caller during
        // an upgrade) and is served; our own callers always declare theirs.
        if let callerMode = head.headerFields[Self.modeHeader], callerMode != mode.rawValue {
            logger.error(
                "refused a call from a service in another deployment mode",
                metadata: ["caller.mode": "\(callerMode.prefix(16))", "mode": "\(mode.rawValue)"]
            )
            return Self.refusal(
                .forbidden,
                RPCError(code: .callerNotAllowed, message: "This service runs in \(mode.rawValue) mode; the caller does not")
            )
        }
        guard let caller else {
            // No certificate cannot pass the handshake; one without our service identity URI can.
            return Self.refusal(.forbidden, RPCError(code: .callerNotAllowed, message: "Client certificate required"))
        }
        guard Self.isJSON(head.headerFields[.contentType]) else {
            return Self.refusal(.unsupportedMediaType, .invalidRequest("Content-Type must be application/json"))
        }
        // Propagate the caller's request id so one flow can be followed across services' logs.
        let requestID =
            head.headerFields[Self.requestIDHeader].flatMap { RPCRequestContext.isSafeRequestID($0) ? $0 : nil } ?? "\(RequestID())"
        var logger = self.logger
        logger.addMetadata(["request.id": .string(requestID), "rpc.caller": .string(caller)])
        // Whom the caller serves (the public client), for the security events the handler writes.
        let origin = head.headerFields[Self.originHeader].flatMap(RequestOrigin.init(headerValue:))
        // The caller's trace, when it sent one: the dispatcher's span for the method joins it.
        var trace = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(head.headerFields, into: &trace, using: HTTPFieldsExtractor())
        let reply = await ServiceContext.withValue(trace) {
            await RequestOrigin.$current.withValue(origin) {
                await dispatcher.handle(
                    body.readableBytesView, context: RPCCallContext(caller: caller, requestID: requestID, logger: logger)
                )
            }
        }
        guard let encoded = reply.encoded() else { return Answer(status: .noContent) }
        return Answer(status: .ok, body: ByteBuffer(bytes: encoded))
    }

    public static let requestIDHeader = HTTPField.Name("x-request-id")!
    static let originHeader = HTTPField.Name(RequestOrigin.headerName)!
    static let modeHeader = HTTPField.Name(DeploymentMode.header)!

    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        // What every caller of ours sends, without the general path's trimming and case folding
        // (about 3 % of an RPC listener's CPU per call, measured).
        if contentType == "application/json" { return true }
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return mediaType == "application/json"
    }

    static func tooLarge(_ limit: Int) -> Answer {
        refusal(.contentTooLarge, RPCError(code: .requestTooLarge, message: "Request body larger than \(limit) bytes"))
    }

    static func refusal(_ status: HTTPResponse.Status, _ error: RPCError) -> Answer {
        let envelope = RPCResponseEnvelope(id: .null, error: error)
        return Answer(status: status, body: ByteBuffer(bytes: (try? JSONCoding.encode(envelope)) ?? Data()))
    }
}
