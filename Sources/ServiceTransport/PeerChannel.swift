import Foundation
import JSONRPC
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// HTTP/2 connections with mutual TLS to a peer's RPC listener, calls taking turns on them, and the
/// calls ready for one connection in the same moment sharing one stream as a JSON-RPC batch
/// (``PeerCallQueue``): each connection opened on first use, and again after it closed, its peer sent it away (GOAWAY),
/// or it used up its stream ids. A connection's I/O runs on one event loop on each side, so one
/// connection per core lets calls use every core (`mfa-bench rpc --connections`: 3,600 calls/s on
/// one connection, 4,400–5,000 on two, on 2 cores).
///
/// Built on swift-nio-http2 directly rather than AsyncHTTPClient (issue 45): a call is one stream
/// channel whose request goes out in a single flush, where AsyncHTTPClient's HTTP/1-shaped
/// request pipeline flushed the head, the body and its end apart (three TLS records and three
/// socket writes per call) and ran a request state machine and a body stream per call.
public final class PeerChannel: Sendable {
    let authority: String
    private let host: String
    private let port: Int
    private let sslContext: NIOSSLContext
    /// `nil` for an IP address: the certificate is then checked against the address itself.
    private let serverHostname: String?
    private let connectTimeout: TimeAmount
    private let slots: [Slot]
    private let turn = Atomic<Int>(0)
    private let opened = Atomic<Int>(0)
    /// Streams sent and the calls they carried.
    public let traffic: PeerTraffic

    /// How many connections were opened so far (each reconnection counts).
    var connectionsOpened: Int { opened.load(ordering: .relaxed) }

    /// Streams one connection opens before a fresh connection takes over (a client's stream ids are
    /// the odd numbers below 2³¹).
    static let streamsPerConnection = 1 << 29

    private final class Slot: Sendable {
        let state = Mutex<State>(.idle)
    }

    private enum State {
        case idle
        case connecting(Task<Connection, any Error>)
        case open(Connection, streams: Int)
        case closed
    }

    struct Connection: Sendable {
        let channel: any Channel
        let multiplexer: NIOHTTP2Handler.StreamMultiplexer
        let goAway: GoAwayRecord
        let calls = PeerCallQueue()
        let traffic: PeerTraffic
    }

    /// - Parameters:
    ///   - url: `https://host:port`, the peer's RPC listener.
    ///   - connections: how many connections calls take turns on (a service's peer connections: one
    ///     per core of the machine).
    /// - Parameter traffic: where the streams and calls sent are counted (the peer's, shared by the
    ///   channels that replace one another).
    public init(
        url: String, tls: TLSConfiguration, connections: Int = 1, connectTimeout: Duration = .seconds(5),
        traffic: PeerTraffic = PeerTraffic()
    ) throws {
        self.traffic = traffic
        guard let components = URLComponents(string: url), components.scheme == "https", let host = components.host, !host.isEmpty
        else { throw PeerURLError(url: url) }
        let port = components.port ?? 443
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.host = bareHost
        self.port = port
        authority = "\(host):\(port)"
        var configuration = tls
        configuration.applicationProtocols = ["h2"]
        sslContext = try NIOSSLContext(configuration: configuration)
        serverHostname = (try? SocketAddress(ipAddress: bareHost, port: 0)) == nil ? bareHost : nil
        self.connectTimeout = .nanoseconds(connectTimeout.nanoseconds)
        slots = (0..<max(1, connections)).map { _ in Slot() }
    }

    /// Sends one JSON-RPC request object to `path` (with the calls queued for the same connection in
    /// the same moment, as one batch: ``PeerCallQueue``) and returns its answer, within `deadline`.
    /// A call that provably never reached the peer's handler (its stream never written, or refused
    /// by GOAWAY or REFUSED_STREAM, with the rest of its batch) is sent again on a fresh connection,
    /// up to ``attempts`` times in all.
    /// - Parameters:
    ///   - id: the request's id, unique among the calls on this channel: the batch's answer is matched
    ///     to its calls by id.
    ///   - alone: the call takes a stream of its own (``RPCMethod/sharesBatches``).
    func call(
        path: String, headers: [(String, String)], request: ByteBuffer, id: RPCID, alone: Bool = false, limit: Int,
        deadline: Duration
    ) async throws -> PeerAnswer {
        var head = HPACKHeaders()
        head.reserveCapacity(6 + headers.count)
        head.add(name: ":method", value: "POST")
        head.add(name: ":scheme", value: "https")
        head.add(name: ":authority", value: authority)
        head.add(name: ":path", value: path)
        for (name, value) in headers { head.add(name: name, value: value) }
        let timeout = TimeAmount.nanoseconds(deadline.nanoseconds)
        // A connection the peer sends away just as a call goes out, or a fresh one the peer finds
        // idle before the call arrives (a loaded machine), refuses it provably unprocessed.
        for _ in 1..<Self.attempts {
            do {
                return try await exchange(head, request, id: id, alone: alone, limit: limit, deadline: timeout)
            } catch PeerExchangeError.notSent {
                continue
            }
        }
        return try await exchange(head, request, id: id, alone: alone, limit: limit, deadline: timeout)
    }

    /// How often a call refused unprocessed is sent (each time on a fresh connection).
    static let attempts = 3

    private func exchange(_ head: HPACKHeaders, _ request: ByteBuffer, id: RPCID, alone: Bool, limit: Int, deadline: TimeAmount)
        async throws -> PeerAnswer
    {
        let slot = slots[turn.add(1, ordering: .relaxed).oldValue % slots.count]
        let connection = try await open(slot)
        let promise = connection.channel.eventLoop.makePromise(of: PeerAnswer.self)
        connection.calls.add(
            PeerCall(head: head, deadline: deadline, request: request, id: id, alone: alone, limit: limit, promise: promise),
            to: connection
        )
        do {
            return try await promise.futureResult.get()
        } catch PeerExchangeError.notSent(let error) {
            // This connection takes no new streams; the next call opens another.
            retire(connection.channel)
            throw PeerExchangeError.notSent(error)
        }
    }

    /// The open connection, or one being opened: one connect at a time, shared by every caller.
    private func open(_ slot: Slot) async throws -> Connection {
        enum Step {
            case use(Connection)
            case wait(Task<Connection, any Error>)
            case retire(any Channel, then: Task<Connection, any Error>)
        }
        let step: Step = try slot.state.withLock { state in
            switch state {
            case .open(let connection, let streams) where connection.channel.isActive:
                if streams < Self.streamsPerConnection {
                    state = .open(connection, streams: streams + 1)
                    return .use(connection)
                }
                let task = connectTask(slot)
                state = .connecting(task)
                return .retire(connection.channel, then: task)
            case .connecting(let task):
                return .wait(task)
            case .idle, .open:
                let task = connectTask(slot)
                state = .connecting(task)
                return .wait(task)
            case .closed:
                throw ChannelError.ioOnClosedChannel
            }
        }
        switch step {
        case .use(let connection):
            return connection
        case .retire(let old, let task):
            Self.closeLater(old)
            return try await task.value
        case .wait(let task):
            return try await task.value
        }
    }

    private func connectTask(_ slot: Slot) -> Task<Connection, any Error> {
        Task { [self] in
            do {
                let connection = try await connect()
                let kept = slot.state.withLock { state -> Bool in
                    guard case .connecting = state else { return false }
                    state = .open(connection, streams: 1)
                    return true
                }
                if !kept { connection.channel.close(promise: nil) }
                connection.channel.closeFuture.whenComplete { [weak self] _ in self?.retire(connection.channel) }
                return connection
            } catch {
                slot.state.withLock { state in
                    if case .connecting = state { state = .idle }
                }
                throw error
            }
        }
    }

    private func connect() async throws -> Connection {
        opened.add(1, ordering: .relaxed)
        let (sslContext, serverHostname, traffic) = (self.sslContext, self.serverHostname, self.traffic)
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname))
                    let multiplexer = try operations.configureHTTP2Pipeline(
                        mode: .client, connectionConfiguration: .init(), streamConfiguration: .init(),
                        inboundStreamInitializer: { stream in stream.close() }
                    )
                    let goAway = GoAwayRecord()
                    try operations.addHandler(GoAwayWatch(goAway) { [weak self] in self?.retire(channel) })
                    return Connection(channel: channel, multiplexer: multiplexer, goAway: goAway, traffic: traffic)
                }
            }
    }

    /// New calls go to a new connection; calls still on `channel` finish on it.
    fileprivate func retire(_ channel: any Channel) {
        let retired = slots.contains { slot in
            slot.state.withLock { state -> Bool in
                guard case .open(let connection, _) = state, connection.channel === channel else { return false }
                state = .idle
                return true
            }
        }
        if retired, channel.isActive { Self.closeLater(channel) }
    }

    /// Closes a retired connection once the calls still on it have had their time (the longest
    /// deadline any call is given, an import's, is 5 minutes); a peer that sent it away closes it sooner.
    private static func closeLater(_ channel: any Channel) {
        channel.eventLoop.scheduleTask(in: .minutes(6)) { channel.close(promise: nil) }
    }

    /// Closes the connections; calls after this fail.
    public func close() async {
        for slot in slots {
            let current = slot.state.withLock { state -> State in
                defer { state = .closed }
                return state
            }
            switch current {
            case .open(let connection, _):
                try? await connection.channel.close()
            case .connecting(let task):
                if let connection = try? await task.value { try? await connection.channel.close() }
            case .idle, .closed:
                break
            }
        }
    }
}

/// The last stream a peer's GOAWAY said it processes (RFC 9113 §6.8): streams above it were not,
/// and can be sent again elsewhere. Read and written on its connection's event loop only, where the
/// GOAWAY frame reaches ``GoAwayWatch`` before the streams it drops are closed.
final class GoAwayRecord: @unchecked Sendable {
    var lastStreamID: HTTP2StreamID?
}

/// A peer's GOAWAY: the connection takes no new streams, so new calls go to another.
private final class GoAwayWatch: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    private let record: GoAwayRecord
    private let goingAway: @Sendable () -> Void

    init(_ record: GoAwayRecord, goingAway: @escaping @Sendable () -> Void) {
        self.record = record
        self.goingAway = goingAway
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .goAway(let lastStreamID, _, _) = unwrapInboundIn(data).payload {
            record.lastStreamID = min(lastStreamID, record.lastStreamID ?? lastStreamID)
            goingAway()
        }
        context.fireChannelRead(data)
    }
}

/// A peer address that is not `https://host[:port]`.
public struct PeerURLError: Error, CustomStringConvertible {
    public let url: String
    public var description: String { "peer URL must be https://host[:port], not \(url.prefix(200))" }
}
