import NIOCore
import NIOHTTP2

/// Ends an RPC listener's HTTP/2 connection gracefully: after `idle` without a stream, and when the
/// listener stops (``ChannelShouldQuiesceEvent``), it sends GOAWAY naming the last stream it took and
/// closes the connection once that stream and every earlier one are answered.
///
/// Written here rather than taken from swift-nio-http2's `NIOHTTP2ServerConnectionManagementHandler`,
/// whose close waits for the client to answer a PING sent after its first GOAWAY: measured with our
/// own caller, that answer did not come, and a stopping service waited on the connection until its
/// shutdown deadline. A stream the client opens after our GOAWAY is one the GOAWAY names as not
/// processed, and ``PeerChannel`` sends such a call again on another connection (RFC 9113 §6.8).
final class RPCConnectionDrain: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame

    private let idle: TimeAmount
    private let eventLoop: any EventLoop
    private var context: ChannelHandlerContext?
    private var open: Set<HTTP2StreamID> = []
    private var lastStreamID = HTTP2StreamID.rootStream
    private var draining = false
    private var idleTimer: Scheduled<Void>?

    init(idle: TimeAmount, eventLoop: any EventLoop) {
        self.idle = idle
        self.eventLoop = eventLoop
    }

    /// What swift-nio-http2 tells of each stream's opening and closing (with its inline multiplexer
    /// these are not events in the connection's pipeline): give it to `NIOHTTP2Handler`.
    var streamDelegate: StreamDelegate { StreamDelegate(drain: NIOLoopBound(self, eventLoop: eventLoop)) }

    struct StreamDelegate: NIOHTTP2StreamDelegate, Sendable {
        let drain: NIOLoopBound<RPCConnectionDrain>

        func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {
            if drain.eventLoop.inEventLoop {
                drain.value.created(id)
            } else {
                drain.eventLoop.execute { drain.value.created(id) }
            }
        }

        func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
            if drain.eventLoop.inEventLoop {
                drain.value.closed(id)
            } else {
                drain.eventLoop.execute { drain.value.closed(id) }
            }
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        armIdle(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        self.context = nil
    }

    private func created(_ id: HTTP2StreamID) {
        open.insert(id)
        lastStreamID = max(lastStreamID, id)
        idleTimer?.cancel()
        idleTimer = nil
    }

    private func closed(_ id: HTTP2StreamID) {
        open.remove(id)
        guard open.isEmpty, let context else { return }
        if draining { closeSoon(context) } else { armIdle(context) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            drain(context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        idleTimer = nil
        context.fireChannelInactive()
    }

    private func drain(_ context: ChannelHandlerContext) {
        guard !draining else { return }
        draining = true
        idleTimer?.cancel()
        idleTimer = nil
        let goAway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: nil))
        context.writeAndFlush(NIOAny(goAway), promise: nil)
        if open.isEmpty { closeSoon(context) }
    }

    private func armIdle(_ context: ChannelHandlerContext) {
        idleTimer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        idleTimer = context.eventLoop.scheduleTask(in: idle) {
            let (handler, context) = loopBound.value
            handler.drain(context)
        }
    }

    /// On the next tick: the last answer's END_STREAM, written just now, is flushed first.
    private func closeSoon(_ context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.execute { loopBound.value.close(promise: nil) }
    }
}
