import Configuration
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOCore
import NIOSSL

/// What every listener (public, public TLS, ops, RPC) allows a client: how long it waits for a TLS
/// handshake (`http.handshakeTimeoutSeconds`), for a request's head (`http.headerTimeoutSeconds`), for
/// its body (`http.bodyTimeoutSeconds`) and for anything at all on an open connection
/// (`http.idleTimeoutSeconds`, also between kept-alive requests and on an HTTP/2 connection without
/// streams), and how many connections it holds at once (`http.maximumConnections`).
public struct ListenerLimits: Sendable {
    public var handshake: Duration
    public var header: Duration
    public var body: Duration
    public var idle: Duration
    public var maximumConnections: Int

    public init(
        handshake: Duration = .seconds(10), header: Duration = .seconds(10), body: Duration = .seconds(30),
        idle: Duration = .seconds(60), maximumConnections: Int = 4096
    ) {
        self.handshake = handshake
        self.header = header
        self.body = body
        self.idle = idle
        self.maximumConnections = maximumConnections
    }

    init(reader: ConfigReader) throws {
        func positive(_ key: String, _ fallback: Int) throws -> Int {
            let value = reader.int(forKey: ConfigKey(key), default: fallback)
            guard value > 0 else { throw InvalidSetting(key: key, reason: "must be a positive number") }
            return value
        }
        self.init(
            handshake: .seconds(try positive("http.handshakeTimeoutSeconds", 10)),
            header: .seconds(try positive("http.headerTimeoutSeconds", 10)),
            body: .seconds(try positive("http.bodyTimeoutSeconds", 30)),
            idle: .seconds(try positive("http.idleTimeoutSeconds", 60)),
            maximumConnections: try positive("http.maximumConnections", 4096)
        )
    }

    /// Plain HTTP/1.1.
    public func http1() -> HTTPServerBuilder {
        let connections = ConnectionCount(limit: maximumConnections)
        let configuration = connection()
        return HTTPServerBuilder { responder in
            GuardedChannel(
                inner: HTTP1Channel(responder: responder, configuration: configuration), connections: connections, handshake: nil,
                quiet: nil)
        }
    }

    /// TLS with ALPN: HTTP/2, or HTTP/1.1 for clients that do not offer it.
    public func http2Upgrade(tlsConfiguration: TLSConfiguration) throws -> HTTPServerBuilder {
        let connections = ConnectionCount(limit: maximumConnections)
        // An idle HTTP/2 connection is sent GOAWAY; one whose client then neither closes it nor opens a
        // stream is closed after the head's time, instead of being held until it does.
        let configuration = HTTP2UpgradeChannel.Configuration(
            idleTimeout: idle, gracefulCloseTimeout: header, streamConfiguration: connection()
        )
        let handshake = Self.amount(handshake)
        // An idle connection gets GOAWAY after `idle`; one that then stays silent goes after `header` more.
        let quiet = Self.amount(idle + header)
        return HTTPServerBuilder { responder in
            GuardedChannel(
                inner: try HTTP2UpgradeChannel(tlsConfiguration: tlsConfiguration, configuration: configuration, responder: responder),
                connections: connections, handshake: handshake, quiet: quiet
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
