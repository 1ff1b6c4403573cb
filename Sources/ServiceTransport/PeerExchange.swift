import NIOCore
import NIOHPACK
import NIOHTTP2

/// What a peer answered on one HTTP/2 stream.
struct PeerAnswer: Sendable {
    let status: Int
    let headers: HPACKHeaders
    let body: ByteBuffer
}

/// Why an exchange ended without an answer.
enum PeerExchangeError: Error, CustomStringConvertible {
    /// Nothing of the request reached the peer (the connection was closing, or going away): a
    /// retry on another connection cannot run the call twice.
    case notSent(any Error)
    case deadlineExceeded
    case answerTooLarge(limit: Int)
    /// The stream ended, or was reset, before the whole answer arrived.
    case incomplete(String)

    var description: String {
        switch self {
        case .notSent(let error): return "request not sent: \(error)"
        case .deadlineExceeded: return "deadline exceeded"
        case .answerTooLarge(let limit): return "answer larger than \(limit) bytes"
        case .incomplete(let why): return "no complete answer: \(why)"
        }
    }
}

/// One JSON-RPC request and its answer on one HTTP/2 stream: the request's HEADERS and DATA
/// (with END_STREAM) go out in one flush as soon as the stream is active, so a call costs one TLS
/// record and one socket write; the answer's frames are gathered up to `limit` bytes.
///
/// Everything here runs on the connection's event loop; the promise is completed exactly once.
final class PeerExchange: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let requestHeaders: HPACKHeaders
    private let requestBody: ByteBuffer
    private let limit: Int
    private let deadline: TimeAmount
    private let promise: EventLoopPromise<PeerAnswer>
    private let goAway: GoAwayRecord
    private var streamID: HTTP2StreamID?
    private var sent = false
    /// The request's frames left this stream for the connection.
    private var delivered = false
    private var status: Int?
    private var answerHeaders = HPACKHeaders()
    private var answerBody: ByteBuffer?
    private var timer: Scheduled<Void>?

    init(
        headers: HPACKHeaders, body: ByteBuffer, limit: Int, deadline: TimeAmount, goAway: GoAwayRecord,
        promise: EventLoopPromise<PeerAnswer>
    ) {
        self.goAway = goAway
        self.requestHeaders = headers
        self.requestBody = body
        self.limit = limit
        self.deadline = deadline
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { send(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        send(context: context)
        context.fireChannelActive()
    }

    private func send(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        let stream = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) { [self] in
            // The stream is reset; the connection and its other calls go on.
            finish(.failure(PeerExchangeError.deadlineExceeded))
            stream.close(promise: nil)
        }
        context.write(wrapOutboundOut(.headers(.init(headers: requestHeaders))), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(requestBody), endStream: true))), promise: written)
        written.futureResult.whenComplete { [self] result in
            switch result {
            case .success:
                delivered = true
                // Given when the first frame went out.
                streamID = try? stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)
            case .failure(let error):
                // The frames were refused before they left (a connection going away, closed, or
                // out of stream ids): the peer saw nothing of this call.
                finish(.failure(PeerExchangeError.notSent(error)))
                stream.close(promise: nil)
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if status == nil {
                guard let value = frame.headers.first(name: ":status").flatMap(Int.init) else {
                    fail(context, .incomplete("answer without a status"))
                    return
                }
                // An interim answer (1xx) is followed by the real one.
                if value >= 200 {
                    status = value
                    answerHeaders = frame.headers
                }
            }
            if frame.endStream { complete() }
        case .data(let frame):
            guard case .byteBuffer(var bytes) = frame.data else { return }
            if answerBody == nil {
                answerBody = bytes
            } else {
                answerBody!.writeBuffer(&bytes)
            }
            if answerBody!.readableBytes > limit {
                fail(context, .answerTooLarge(limit: limit))
                return
            }
            if frame.endStream { complete() }
        case .rstStream(let code):
            // REFUSED_STREAM: the peer did nothing with it (RFC 9113 §8.7).
            finish(
                .failure(
                    code == .refusedStream
                        ? PeerExchangeError.notSent(NIOHTTP2Errors.streamClosed(streamID: streamID ?? .rootStream, errorCode: code))
                        : PeerExchangeError.incomplete("stream reset by the peer (\(code))")
                )
            )
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A stream the peer's GOAWAY left out was never processed (RFC 9113 §6.8), as one that never left.
        let refused = streamID.map { mine in goAway.lastStreamID.map { mine > $0 } ?? false } ?? false
        finish(
            .failure(
                delivered && !refused
                    ? PeerExchangeError.incomplete("stream closed") : PeerExchangeError.notSent(ChannelError.ioOnClosedChannel)
            )
        )
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(PeerExchangeError.incomplete("\(error)")))
        context.close(promise: nil)
    }

    private func complete() {
        guard let status else {
            finish(.failure(PeerExchangeError.incomplete("stream ended before the answer's head")))
            return
        }
        finish(.success(PeerAnswer(status: status, headers: answerHeaders, body: answerBody ?? ByteBuffer())))
    }

    private func fail(_ context: ChannelHandlerContext, _ error: PeerExchangeError) {
        finish(.failure(error))
        context.close(promise: nil)
    }

    private var finished = false

    private func finish(_ result: Result<PeerAnswer, any Error>) {
        guard !finished else { return }
        finished = true
        timer?.cancel()
        promise.completeWith(result)
    }
}
