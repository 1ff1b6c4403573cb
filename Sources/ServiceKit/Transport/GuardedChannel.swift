import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import NIOTLS
import Synchronization

/// A listener's connection set-up with the limits Hummingbird's own channels leave out (issue 40,
/// M-1): no more than `ConnectionCount.limit` connections at once, and a TLS handshake that must
/// complete within `handshake`. Without them, sockets that never sent a ClientHello stayed open for
/// minutes, and 3,000 of them doubled the gateway's memory.
struct GuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let connections: ConnectionCount
    /// `nil` for a plain listener, whose head deadline (`RequestDeadlineHandler`) runs from the start.
    var handshake: TimeAmount?
    /// How long a TLS connection may pass with nothing read or written. Hummingbird's HTTP/2 idle
    /// timeout sends GOAWAY and a PING, and closes only once the PING is answered: a client that says
    /// nothing at all kept its connection for good.
    var quiet: TimeAmount?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard connections.admit() else {
            logger.warning("connection refused: listener at its limit", metadata: ["limit": "\(connections.limit)"])
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(ConnectionLimitReached())
        }
        channel.closeFuture.whenComplete { [connections] _ in connections.release() }
        if let quiet {
            do {
                try channel.pipeline.syncOperations.addHandler(QuietConnectionHandler(limit: quiet), position: .first)
            } catch {
                channel.close(promise: nil)
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        let value = inner.setup(channel: channel, logger: logger)
        if let handshake {
            // The TLS handler is in the pipeline once `inner.setup` returns; the deadline goes right
            // after it, where its handshake-completed event passes.
            do {
                let operations = channel.pipeline.syncOperations
                let tls = try operations.handler(type: NIOSSLServerHandler.self)
                try operations.addHandler(HandshakeDeadlineHandler(limit: handshake), position: .after(tls))
            } catch {
                channel.close(promise: nil)
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        return value
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// How many connections a listener holds; shared by every connection of one listener.
final class ConnectionCount: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection in, or answers `false` when the listener is at its limit.
    func admit() -> Bool {
        if open.add(1, ordering: .relaxed).newValue <= limit { return true }
        open.subtract(1, ordering: .relaxed)
        return false
    }

    func release() {
        open.subtract(1, ordering: .relaxed)
    }
}

struct ConnectionLimitReached: Error {}

/// Closes a connection whose TLS handshake has not completed within `limit` of its opening, then
/// steps out of the pipeline.
final class HandshakeDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let limit: TimeAmount
    private var deadline: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            deadline?.cancel()
            deadline = nil
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }
}

/// Closes a connection on which nothing has been read or written for `limit`. Activity only stamps a
/// time; one timer per connection checks the stamp, so the hot path schedules nothing.
final class QuietConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    private let limit: TimeAmount
    private var lastActivity = NIODeadline.now()
    private var check: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        lastActivity = .now()
        schedule(context, at: lastActivity + limit)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActivity = .now()
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        lastActivity = .now()
        context.write(data, promise: promise)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            let due = handler.lastActivity + handler.limit
            if due <= .now() {
                context.close(promise: nil)
            } else {
                handler.schedule(context, at: due)
            }
        }
    }
}
