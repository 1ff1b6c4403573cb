import HTTPTypes
import NIOCore
import NIOHTTPTypes
import NIOSSL
import Synchronization

/// One `POST /rpc` on an HTTP/2 stream (or an HTTP/1.1 connection): gathers the request up to the
/// endpoint's body limit on the event loop, hands the whole of it to ``RPCEndpoint`` as one task,
/// and writes the answer's head, body and end in one flush. Nothing else runs per call: no
/// `NIOAsyncChannel`, no async writer, no task per stream waiting for frames (issue 60: Hummingbird's
/// per-stream machinery was half of the called side's CPU per call).
///
/// A body over the limit (declared or received) is answered 413 at once, and the rest of it is
/// read and dropped. The caller's identity is read from the connection's certificate once per
/// connection (``RPCConnectionState``).
final class RPCRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let endpoint: RPCEndpoint
    private let connection: RPCConnectionState
    private let calls: RPCCallsInFlight
    private let serverName: String?

    private enum State {
        case idle
        case receiving(HTTPRequest, ByteBuffer?)
        /// Answered before the request ended (refused): what is left of it is dropped.
        case draining
        case answering
    }

    private var state = State.idle

    init(endpoint: RPCEndpoint, connection: RPCConnectionState, calls: RPCCallsInFlight, serverName: String?) {
        self.endpoint = endpoint
        self.connection = connection
        self.calls = calls
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard case .idle = state else { return }
            guard head.method == .post, head.path == "/rpc" else {
                refuse(context, RPCEndpoint.refusal(.notFound, .invalidRequest("Only POST /rpc is served here")))
                return
            }
            if let declared = head.headerFields[.contentLength].flatMap(Int.init), declared > endpoint.maximumBodyBytes {
                refuse(context, RPCEndpoint.tooLarge(endpoint.maximumBodyBytes))
                return
            }
            state = .receiving(head, nil)
        case .body(var bytes):
            guard case .receiving(let head, var body) = state else { return }
            if body == nil {
                body = bytes
            } else {
                body!.writeBuffer(&bytes)
            }
            guard body!.readableBytes <= endpoint.maximumBodyBytes else {
                refuse(context, RPCEndpoint.tooLarge(endpoint.maximumBodyBytes))
                return
            }
            state = .receiving(head, body)
        case .end:
            switch state {
            case .receiving(let head, let body):
                state = .answering
                dispatch(context, head, body ?? ByteBuffer())
            case .draining:
                state = .idle
            case .idle, .answering:
                break
            }
        }
    }

    private func dispatch(_ context: ChannelHandlerContext, _ head: HTTPRequest, _ body: ByteBuffer) {
        let caller = connection.caller(requireIdentity: endpoint.requireIdentity)
        let (endpoint, calls) = (self.endpoint, self.calls)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        calls.begin()
        Task {
            let answer = await endpoint.answer(head, body: body, caller: caller)
            loopBound.eventLoop.execute {
                let (handler, context) = loopBound.value
                handler.state = .idle
                handler.write(context, answer)
                calls.end()
            }
        }
    }

    private func refuse(_ context: ChannelHandlerContext, _ answer: RPCEndpoint.Answer) {
        state = .draining
        write(context, answer)
    }

    private func write(_ context: ChannelHandlerContext, _ answer: RPCEndpoint.Answer) {
        var response = HTTPResponse(status: answer.status)
        response.headerFields.reserveCapacity(5)
        if let body = answer.body {
            response.headerFields[.contentType] = "application/json"
            response.headerFields[.contentLength] = String(body.readableBytes)
        }
        response.headerFields[RPCEndpoint.modeHeader] = endpoint.mode.rawValue
        if let serverName { response.headerFields[.server] = serverName }
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A malformed stream or request: the codec's error closes this stream (or HTTP/1.1
        // connection); the connection's other streams go on.
        context.close(promise: nil)
    }
}

/// What one connection knows of its caller: the common name of its verified client certificate,
/// read on the first call and kept (a connection's certificate does not change). Read and written
/// on the connection's event loop only, where its streams' handlers run.
final class RPCConnectionState: @unchecked Sendable {
    /// The TLS connection (over HTTP/2 the streams' parent; over HTTP/1.1 the request's own channel).
    private weak var connection: (any Channel)?
    private var resolved = false
    private var name: String?

    init(connection: any Channel) {
        self.connection = connection
    }

    func caller(requireIdentity: Bool) -> String? {
        if resolved { return name }
        resolved = true
        guard let certificate = try? connection?.pipeline.syncOperations.nioSSL_peerCertificate(),
            let der = try? certificate.toDERBytes()
        else { return nil }
        name = PeerIdentity.commonName(ofDER: der, requireIdentity: requireIdentity)
        return name
    }
}

/// The calls a listener has begun and not yet answered: a stopping listener waits for them, so no
/// acknowledged write is cut off by the process ending under it.
final class RPCCallsInFlight: Sendable {
    private let count = Atomic<Int>(0)

    func begin() { count.add(1, ordering: .relaxed) }
    func end() { count.subtract(1, ordering: .relaxed) }
    var current: Int { count.load(ordering: .relaxed) }

    /// Returns once no call is in flight, or after `limit`.
    func drained(within limit: Duration) async {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while current > 0, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
