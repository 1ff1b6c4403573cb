import NIOCore
import NIOHTTPTypes

/// Closes a connection (an HTTP/2 stream) whose request arrives too slowly: the head must be complete
/// within `header` of the connection opening (or, on a kept-alive connection, within `next` of the
/// previous response), and the body within `body` of the head. A slow-loris client, which trickles a
/// byte at a time so that no idle timeout ever fires, holds a socket and a task for no longer than that.
/// Time spent answering is not limited here: a request that has fully arrived is ours to finish.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    // Hummingbird's pipeline carries swift-http-types' parts, not NIOHTTP1's.
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let header: TimeAmount
    private let body: TimeAmount
    private let next: TimeAmount
    private var deadline: Scheduled<Void>?

    init(header: TimeAmount, body: TimeAmount, next: TimeAmount) {
        self.header = header
        self.body = body
        self.next = next
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, after: header) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, after: header)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(context, after: body)
        case .body: break
        case .end: disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The answer is complete: the next request on this connection starts its own clock.
        if case .end = unwrapOutboundIn(data) { arm(context, after: next) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, after delay: TimeAmount) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
