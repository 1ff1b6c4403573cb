import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOHTTP2
import NIOHTTPTypesHTTP1
import NIOHTTPTypesHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import ServiceLifecycle
import Synchronization

/// The `/rpc` listener, written on swift-nio and swift-nio-http2 directly (issue 60): mutual TLS,
/// then HTTP/2 (what our callers speak, ``PeerChannel``) or HTTP/1.1 for tools, each request a
/// ``RPCRequestHandler`` that hands the whole body to ``RPCEndpoint`` as one task. The public and
/// ops listeners stay on Hummingbird; this one serves only our own calls, where Hummingbird's
/// per-stream async machinery was half of the called side's CPU per call.
///
/// The limits are every listener's (``ListenerLimits``, applied as ``GuardedChannel`` applies
/// them): the connection and per-address caps, the handshake and first-request deadlines, the quiet
/// connection's end, a head and body deadline per request (``RequestDeadlineHandler``, per stream
/// over HTTP/2), and swift-nio-http2's own flood guards (concurrent streams, reset floods, headers
/// size). An HTTP/2 connection without a stream for `idle` is told GOAWAY and closed (``RPCConnectionDrain``).
///
/// Stopping: the port closes, every connection is told GOAWAY (HTTP/2) or closes after its current
/// answer (HTTP/1.1), the listener waits for them, then for calls still running whose caller went
/// away, so a stopping listener neither crashes nor cuts off a write it acknowledged.
public struct RPCListener: Service {
    let endpoint: RPCEndpoint
    let tls: TLSConfiguration
    let limits: ListenerLimits
    let connections: ConnectionGuard
    let host: String
    let port: Int
    let serverName: String?
    let logger: Logger
    let onServerRunning: @Sendable (any Channel) async -> Void
    private var beforeStart: [@Sendable () async throws -> Void] = []

    public init(
        endpoint: RPCEndpoint, tls: TLSConfiguration, limits: ListenerLimits, connections: ConnectionGuard, host: String, port: Int,
        serverName: String?, logger: Logger, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) {
        self.endpoint = endpoint
        var tls = tls
        tls.applicationProtocols = ["h2", "http/1.1"]
        self.tls = tls
        self.limits = limits
        self.connections = connections
        self.host = host
        self.port = port
        self.serverName = serverName
        self.logger = logger
        self.onServerRunning = onServerRunning
    }

    /// Work that must finish before the port opens (migrations); a step that throws stops the listener.
    public mutating func beforeServerStarts(perform step: @escaping @Sendable () async throws -> Void) {
        beforeStart.append(step)
    }

    public func run() async throws {
        let context = try NIOSSLContext(configuration: tls)
        let calls = RPCCallsInFlight()
        let stopping = StoppingFlag()
        let quiescing = ServerQuiescingHelper(group: MultiThreadedEventLoopGroup.singleton)
        let setup = ConnectionSetup(
            endpoint: endpoint, sslContext: context, limits: limits, connections: connections, calls: calls, stopping: stopping,
            serverName: serverName, logger: logger
        )
        for step in beforeStart { try await step() }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in setup.configure(channel) }
            .bind(host: host, port: port)
            .get()
        let allClosed = server.eventLoop.makePromise(of: Void.self)
        await withGracefulShutdownHandler {
            await onServerRunning(server)
            try? await server.closeFuture.get()
        } onGracefulShutdown: {
            stopping.set()
            quiescing.initiateShutdown(promise: allClosed)
        }
        guard stopping.isSet else {
            allClosed.succeed()
            throw ChannelError.ioOnClosedChannel
        }
        // The port is closed and every connection told GOAWAY: each closes once its streams are
        // answered. Then calls whose caller went away may still be writing. (The process's own
        // shutdown deadline bounds both.)
        _ = await RPCClient.result(within: Self.drainLimit) { try? await allClosed.futureResult.get() }
        await calls.drained(within: Self.drainLimit)
    }

    /// The longest a stopping listener waits for its connections, then for its calls.
    static let drainLimit: Duration = .seconds(30)

    /// What each accepted connection is given, in order: its place under the caps, the quiet
    /// watch, TLS, the opening deadlines, then HTTP/2 or HTTP/1.1 as ALPN decides.
    struct ConnectionSetup: Sendable {
        let endpoint: RPCEndpoint
        let sslContext: NIOSSLContext
        let limits: ListenerLimits
        let connections: ConnectionGuard
        let calls: RPCCallsInFlight
        /// Set once the listener stops: a connection whose protocol is settled after that moment
        /// missed the listener's quiesce event, and is given it then.
        let stopping: StoppingFlag
        let serverName: String?
        let logger: Logger

        func configure(_ channel: any Channel) -> EventLoopFuture<Void> {
            channel.eventLoop.makeCompletedFuture {
                // An idle connection is told GOAWAY after `idle`; one whose client then stays silent
                // goes after `header` more, counted from the client's last bytes.
                try connections.accept(channel, quiet: ListenerLimits.amount(limits.idle + limits.header), logger: logger)
                let operations = channel.pipeline.syncOperations
                try operations.addHandler(NIOSSLServerHandler(context: sslContext))
                try OpeningDeadlineHandler.add(
                    to: channel, handshake: ListenerLimits.amount(limits.handshake),
                    firstRequest: ListenerLimits.amount(limits.firstRequest)
                )
                let setup = self
                try operations.addHandler(
                    ApplicationProtocolNegotiationHandler { result, channel in
                        channel.eventLoop.makeCompletedFuture {
                            if case .negotiated("h2") = result {
                                try setup.http2(channel)
                            } else {
                                try setup.http1(channel)
                            }
                            if setup.stopping.isSet { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
                        }
                    }
                )
            }
        }

        private func http2(_ channel: any Channel) throws {
            let connection = RPCConnectionState(connection: channel)
            let setup = self
            let drain = RPCConnectionDrain(idle: ListenerLimits.amount(limits.idle), eventLoop: channel.eventLoop)
            let http2 = NIOHTTP2Handler(
                mode: .server, eventLoop: channel.eventLoop, streamDelegate: drain.streamDelegate,
                inboundStreamInitializer: { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandlers(
                            HTTP2FramePayloadToHTTPServerCodec(), setup.deadlines(), setup.requestHandler(connection)
                        )
                    }
                }
            )
            try channel.pipeline.syncOperations.addHandlers(http2, drain)
        }

        private func http1(_ channel: any Channel) throws {
            let operations = channel.pipeline.syncOperations
            try operations.configureHTTPServerPipeline(withErrorHandling: true)
            try operations.addHandlers(
                HTTP1ToHTTPServerCodec(secure: true), deadlines(), requestHandler(RPCConnectionState(connection: channel))
            )
        }

        fileprivate func deadlines() -> RequestDeadlineHandler {
            RequestDeadlineHandler(
                header: ListenerLimits.amount(limits.header), body: ListenerLimits.amount(limits.body),
                next: ListenerLimits.amount(limits.idle)
            )
        }

        fileprivate func requestHandler(_ connection: RPCConnectionState) -> RPCRequestHandler {
            RPCRequestHandler(endpoint: endpoint, connection: connection, calls: calls, serverName: serverName)
        }
    }
}

/// Whether a listener has begun to stop.
final class StoppingFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
