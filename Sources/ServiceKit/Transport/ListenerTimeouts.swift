import Configuration
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOCore
import NIOSSL

/// How long every listener (public, TLS, ops, RPC) waits on a client: for a
/// request's head (`http.headerTimeoutSeconds`), for its body (`http.bodyTimeoutSeconds`), and for
/// anything at all on an open connection (`http.idleTimeoutSeconds`, also between kept-alive requests).
public struct ListenerTimeouts: Sendable {
    public var header: Duration
    public var body: Duration
    public var idle: Duration

    public init(header: Duration = .seconds(10), body: Duration = .seconds(30), idle: Duration = .seconds(60)) {
        self.header = header
        self.body = body
        self.idle = idle
    }

    init(reader: ConfigReader) throws {
        func seconds(_ key: String, _ fallback: Int) throws -> Duration {
            let value = reader.int(forKey: ConfigKey(key), default: fallback)
            guard value > 0 else { throw InvalidSetting(key: key, reason: "must be a positive number of seconds") }
            return .seconds(value)
        }
        self.init(
            header: try seconds("http.headerTimeoutSeconds", 10), body: try seconds("http.bodyTimeoutSeconds", 30),
            idle: try seconds("http.idleTimeoutSeconds", 60)
        )
    }

    /// Plain HTTP/1.1.
    public func http1() -> HTTPServerBuilder {
        .http1(configuration: connection())
    }

    /// TLS with ALPN: HTTP/2, or HTTP/1.1 for clients that do not offer it.
    public func http2Upgrade(tlsConfiguration: TLSConfiguration) throws -> HTTPServerBuilder {
        try .http2Upgrade(
            tlsConfiguration: tlsConfiguration,
            configuration: .init(idleTimeout: idle, streamConfiguration: connection())
        )
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
