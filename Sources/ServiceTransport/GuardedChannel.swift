import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import NIOTLS
import Synchronization

/// A listener's connection set-up with the limits Hummingbird's own channels leave out, kept in this
/// one place for every listener (public, public TLS, admin, RPC, ops), so any rewrite of a listener
/// keeps them:
/// - at most ``ConnectionGuard/limit`` connections at once, and at most ``ConnectionGuard/perAddress``
///   from one client address (issue 57, F-2; issue 40, M-1);
/// - a TLS handshake that completes within `handshake`, and over HTTP/2 a first stream (the preface,
///   then a request's HEADERS) within `firstRequest` of it (``OpeningDeadlineHandler``); HTTP/1.1's
///   head deadline runs from the start (`RequestDeadlineHandler`);
/// - a TLS connection on which the client sends nothing for `quiet` is closed, whatever the server
///   itself writes (``QuietConnectionHandler``: Hummingbird's idle GOAWAY and PING no longer renew it).
/// Without them, sockets that never sent a ClientHello stayed open for minutes, 3,000 of them doubled
/// the gateway's memory, and one host's silent HTTP/2 connections held every slot for 130 s each.
struct GuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let connections: ConnectionGuard
    /// `nil` for a plain listener, whose head deadline (`RequestDeadlineHandler`) runs from the start.
    var handshake: TimeAmount?
    /// Over HTTP/2 after the handshake: until the first request's HEADERS.
    var firstRequest: TimeAmount?
    /// How long a TLS connection may pass with nothing read from its client.
    var quiet: TimeAmount?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try connections.accept(channel, quiet: quiet, logger: logger)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let value = inner.setup(channel: channel, logger: logger)
        if let handshake {
            // The TLS handler is in the pipeline once `inner.setup` returns; the deadlines go right
            // after it, where its handshake-completed event and the decrypted bytes pass.
            do {
                try OpeningDeadlineHandler.add(to: channel, handshake: handshake, firstRequest: firstRequest)
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

struct ConnectionLimitReached: Error {}

extension ConnectionGuard {
    /// Counts a new connection against the listener's limits (closing it when they are reached)
    /// and, for TLS, watches its silence: what every listener does first (`GuardedChannel`, `RPCListener`).
    func accept(_ channel: any Channel, quiet: TimeAmount?, logger: Logger) throws {
        let key = self.key(for: channel.remoteAddress)
        if let refusal = admit(key) {
            if shouldLog() {
                let summary = self.summary
                logger.warning(
                    "connections refused: \(refusal == .perAddress ? "a client address" : "the listener") at its limit",
                    metadata: [
                        "listener": "\(listener)", "limit": "\(limit)",
                        "perAddress": "\(perAddress)", "refusedPerAddress": "\(summary.refusedPerAddress)",
                        "refusedListenerFull": "\(summary.refusedListenerFull)",
                    ]
                )
            }
            channel.close(promise: nil)
            throw ConnectionLimitReached()
        }
        channel.closeFuture.whenComplete { [self] _ in release(key) }
        if let quiet {
            do {
                try channel.pipeline.syncOperations.addHandler(QuietConnectionHandler(limit: quiet), position: .first)
            } catch {
                channel.close(promise: nil)
                throw error
            }
        }
    }
}

/// Closes a connection whose TLS handshake has not completed within `handshake` of its opening, or,
/// once HTTP/2 was negotiated, that has not opened a stream (sent a request's HEADERS frame) within
/// `firstRequest` of the handshake: a client that only connects, or sends the preface and SETTINGS
/// and stops, holds a slot for seconds, not minutes (issue 57, F-2). It reads the decrypted bytes on
/// their way past (nothing is changed or held), and steps out of the pipeline at the first HEADERS,
/// or at once for HTTP/1.1, whose head deadline is `RequestDeadlineHandler`'s.
final class OpeningDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let handshake: TimeAmount
    private let firstRequest: TimeAmount?
    private var deadline: Scheduled<Void>?
    private var frames: HTTP2OpeningScanner?

    init(handshake: TimeAmount, firstRequest: TimeAmount?) {
        self.handshake = handshake
        self.firstRequest = firstRequest
    }

    /// The handshake's and the first request's deadlines, right after the TLS handler.
    static func add(to channel: any Channel, handshake: TimeAmount, firstRequest: TimeAmount?) throws {
        let operations = channel.pipeline.syncOperations
        let tls = try operations.handler(type: NIOSSLServerHandler.self)
        try operations.addHandler(OpeningDeadlineHandler(handshake: handshake, firstRequest: firstRequest), position: .after(tls))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context, in: handshake)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiated) = event {
            context.fireUserInboundEventTriggered(event)
            if negotiated == "h2", let firstRequest {
                frames = HTTP2OpeningScanner()
                arm(context, in: firstRequest)
            } else {
                stepOut(context)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if frames != nil {
            let bytes = unwrapInboundIn(data)
            if frames!.sawRequest(in: bytes.readableBytesView) {
                frames = nil
                context.fireChannelRead(data)
                stepOut(context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    private func arm(_ context: ChannelHandlerContext, in limit: TimeAmount) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }
    }

    private func stepOut(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// Reads an HTTP/2 connection's first bytes as they arrive, in pieces of any size: the 24-byte
/// client preface, then frame after frame (RFC 9113 §4.1: a 9-byte header whose first three bytes
/// are the payload's length and fourth its type), until a HEADERS frame (type 1) opens a stream.
struct HTTP2OpeningScanner {
    private var prefaceLeft = 24
    private var header: [UInt8] = []
    private var payloadLeft = 0

    /// Whether `bytes` complete a HEADERS frame's header; the scanner keeps its place otherwise.
    mutating func sawRequest(in bytes: ByteBufferView) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if prefaceLeft > 0 {
                let taken = min(prefaceLeft, bytes.endIndex - index)
                prefaceLeft -= taken
                index += taken
            } else if payloadLeft > 0 {
                let taken = min(payloadLeft, bytes.endIndex - index)
                payloadLeft -= taken
                index += taken
            } else {
                header.append(bytes[index])
                index += 1
                if header.count == 9 {
                    if header[3] == 0x1 { return true }
                    payloadLeft = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
                    header.removeAll(keepingCapacity: true)
                }
            }
        }
        return false
    }
}

/// Closes a connection on which nothing has been read from the client for `limit`. What the server
/// writes does not count: Hummingbird's idle GOAWAY and the PING after it renewed a silent client's
/// connection, which then lived 130 s instead of 70 (issue 57, F-2). Activity only stamps a time; one
/// timer per connection checks the stamp, so the hot path schedules nothing.
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
