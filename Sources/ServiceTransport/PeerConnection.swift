import Foundation
import JSONRPC
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The HTTP/2 connection (a ``PeerChannel``, which multiplexes every call over one connection) to one
/// peer service, replaced when it stops answering (issue 40, H-3).
///
/// A call that ends in its deadline counts against the connection; any answer, an error answer
/// included, clears the count; a refused or failed connection counts neither way (the peer is down,
/// and a new connection would fare no better). After `recycleAfter` deadlines in a row the client is
/// replaced by a new one, at most once per `timeout`; the old one is shut down once the calls still on
/// it have had their time.
///
/// Liveness asks `isWedged()`: deadlines go on after a recycle while a call over a brand-new connection
/// answers. A process in that state cannot heal itself, and a restart is what heals it.
public final class PeerConnection: Sendable {
    public let peer: ServiceName
    let baseURL: String
    let timeout: Duration
    /// `nil` for a channel someone else owns (a test's, a benchmark's): never recycled or closed here.
    private let tls: TLSConfiguration?
    private let traffic: PeerTraffic
    private let state: Mutex<State>

    static let recycleAfter = 3
    /// One connection per core: each connection's I/O runs on one event loop (``PeerChannel``).
    public static let connectionsPerPeer = System.coreCount
    static let logger = Logger(label: "mfa.peer-connection")

    private struct State {
        var channel: PeerChannel
        var missedInARow = 0
        var lastRecycle: ContinuousClock.Instant?
        var recycles = 0
    }

    /// A connection this object owns, with `tls` (ours): recycled when it stops answering. Every
    /// channel it opens counts what it sends in `traffic`.
    public init(peer: ServiceName, baseURL: String, tls: TLSConfiguration, timeout: Duration, traffic: PeerTraffic = PeerTraffic()) throws {
        self.peer = peer
        self.baseURL = baseURL
        self.timeout = timeout
        self.tls = tls
        self.traffic = traffic
        state = Mutex(State(channel: try PeerChannel(url: baseURL, tls: tls, connections: Self.connectionsPerPeer, traffic: traffic)))
    }

    /// A connection over a channel someone else owns.
    public init(peer: ServiceName, sharing channel: PeerChannel, timeout: Duration) {
        self.peer = peer
        self.baseURL = "https://\(channel.authority)"
        self.timeout = timeout
        self.tls = nil
        self.traffic = channel.traffic
        state = Mutex(State(channel: channel))
    }

    var channel: PeerChannel {
        state.withLock(\.channel)
    }

    /// How often the connection was replaced (each time is logged as a warning).
    public var recycles: Int {
        state.withLock(\.recycles)
    }

    func answered() {
        state.withLock { $0.missedInARow = 0 }
    }

    func missedDeadline(method: String) {
        guard let tls else { return }
        let now = ContinuousClock.now
        let retired: PeerChannel? = state.withLock { state in
            state.missedInARow += 1
            guard state.missedInARow >= Self.recycleAfter else { return nil }
            if let last = state.lastRecycle, now - last < timeout { return nil }
            // The URL was good for the first channel, so it is for this one.
            guard let fresh = try? PeerChannel(url: baseURL, tls: tls, connections: Self.connectionsPerPeer, traffic: traffic) else {
                return nil
            }
            let old = state.channel
            state.channel = fresh
            state.lastRecycle = now
            state.recycles += 1
            return old
        }
        guard let retired else { return }
        Self.logger.warning(
            "peer connection replaced after calls in a row ended in their deadline",
            metadata: ["rpc.peer": "\(peer.rawValue)", "rpc.method": "\(method)", "missed": "\(Self.recycleAfter)"]
        )
        // Calls still on the old connection end within their own deadline; then it goes.
        let grace = timeout + .seconds(2)
        Task {
            try? await Task.sleep(for: grace)
            await retired.close()
        }
    }

    /// Whether this connection is wedged: deadlines in a row went on for longer than twice the timeout
    /// after a recycle, while a call over a brand-new connection answers. `probe` is that call: the
    /// service's liveness method, which the transport does not know.
    public func isWedged(mode: DeploymentMode, probe call: @Sendable (RPCClient) async throws -> Void) async -> Bool {
        guard let tls else { return false }
        let now = ContinuousClock.now
        let suspect = state.withLock { state in
            guard state.missedInARow >= Self.recycleAfter, let last = state.lastRecycle else { return false }
            return now - last > timeout * 2
        }
        guard suspect else { return false }
        guard let fresh = try? PeerChannel(url: baseURL, tls: tls) else { return false }
        defer { Task { await fresh.close() } }
        let probe = RPCClient(peer: peer, connection: PeerConnection(peer: peer, sharing: fresh, timeout: .seconds(2)), mode: mode)
        do {
            try await call(probe)
            return true
        } catch is RPCError {
            return true
        } catch {
            return false
        }
    }

    public func shutdown() async {
        guard tls != nil else { return }
        await channel.close()
    }
}
