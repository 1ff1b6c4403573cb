import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOCore
import NIOSSL
import Prometheus

/// What every listener (public, public TLS, admin, ops, RPC) allows a client: how long it waits for
/// a TLS handshake (`http.handshakeTimeoutSeconds`), then over HTTP/2 for the first request
/// (`http.firstRequestTimeoutSeconds`), for a request's head (`http.headerTimeoutSeconds`), for its
/// body (`http.bodyTimeoutSeconds`) and for anything at all from the client on an open connection
/// (`http.idleTimeoutSeconds`, also between kept-alive requests and on an HTTP/2 connection without
/// streams), how many connections it holds at once (`http.maximumConnections`) and how many of them
/// one client address may hold (`http.maximumConnectionsPerAddress`). ``GuardedChannel`` applies them.
public struct ListenerLimits: Sendable {
    public var handshake: Duration
    public var firstRequest: Duration
    public var header: Duration
    public var body: Duration
    public var idle: Duration
    public var maximumConnections: Int
    public var maximumConnectionsPerAddress: Int

    public init(
        handshake: Duration = .seconds(10), firstRequest: Duration = .seconds(10), header: Duration = .seconds(10),
        body: Duration = .seconds(30), idle: Duration = .seconds(60), maximumConnections: Int = 4096,
        maximumConnectionsPerAddress: Int = 256
    ) {
        self.handshake = handshake
        self.firstRequest = firstRequest
        self.header = header
        self.body = body
        self.idle = idle
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
    }

    /// The connection counts of one listener, `listener` naming it in metrics, logs and `/readyz`;
    /// `exempt` addresses (trusted load balancers) count only toward the listener's cap.
    public func connectionGuard(listener: String, exempt: [String] = [], registry: PrometheusCollectorRegistry? = nil)
        -> ConnectionGuard
    {
        ConnectionGuard(
            listener: listener, limit: maximumConnections, perAddress: maximumConnectionsPerAddress, exempt: exempt, registry: registry
        )
    }

    /// Plain HTTP/1.1.
    public func http1(guard connections: ConnectionGuard? = nil) -> HTTPServerBuilder {
        let connections = connections ?? connectionGuard(listener: "http")
        let configuration = connection()
        return HTTPServerBuilder { responder in
            GuardedChannel(
                inner: HTTP1Channel(responder: responder, configuration: configuration), connections: connections, handshake: nil,
                firstRequest: nil, quiet: nil)
        }
    }

    /// TLS with ALPN: HTTP/2, or HTTP/1.1 for clients that do not offer it.
    public func http2Upgrade(tlsConfiguration: TLSConfiguration, guard connections: ConnectionGuard? = nil) throws -> HTTPServerBuilder {
        let connections = connections ?? connectionGuard(listener: "tls")
        // An idle HTTP/2 connection is sent GOAWAY; one whose client then neither closes it nor opens a
        // stream is closed after the head's time, instead of being held until it does.
        let configuration = HTTP2UpgradeChannel.Configuration(
            idleTimeout: idle, gracefulCloseTimeout: header, streamConfiguration: connection()
        )
        let handshake = Self.amount(handshake)
        let firstRequest = Self.amount(firstRequest)
        // An idle connection gets GOAWAY after `idle`; one whose client then stays silent goes after
        // `header` more, counted from the client's last bytes (the server's GOAWAY and PING renew nothing).
        let quiet = Self.amount(idle + header)
        return HTTPServerBuilder { responder in
            GuardedChannel(
                inner: try HTTP2UpgradeChannel(tlsConfiguration: tlsConfiguration, configuration: configuration, responder: responder),
                connections: connections, handshake: handshake, firstRequest: firstRequest, quiet: quiet
            )
        }
    }

    private func connection() -> HTTP1Channel.Configuration {
        let (header, body, idle) = (Self.amount(header), Self.amount(body), Self.amount(idle))
        return HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestDeadlineHandler(header: header, body: body, next: idle)],
            idleTimeout: idle
        )
    }

    static func amount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.nanoseconds)
    }
}
