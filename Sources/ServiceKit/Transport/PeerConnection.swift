import AsyncHTTPClient
import Contracts
import Foundation
import JSONRPC
import Logging
import Synchronization

/// The HTTP/2 connection (an `HTTPClient`, which multiplexes every call over one connection) to one
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
    /// `nil` for a client someone else owns (a test's, a benchmark's): never recycled or shut down here.
    private let configuration: HTTPClient.Configuration?
    private let state: Mutex<State>

    static let recycleAfter = 3
    static let logger = Logger(label: "mfa.peer-connection")

    private struct State {
        var client: HTTPClient
        var missedInARow = 0
        var lastRecycle: ContinuousClock.Instant?
        var recycles = 0
    }

    /// A connection this object owns: built from `configuration`, recycled when it stops answering.
    public init(peer: ServiceName, baseURL: String, configuration: HTTPClient.Configuration, timeout: Duration) {
        self.peer = peer
        self.baseURL = baseURL
        self.timeout = timeout
        self.configuration = configuration
        state = Mutex(State(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)))
    }

    /// A connection over a client someone else owns.
    public init(peer: ServiceName, baseURL: String, sharing client: HTTPClient, timeout: Duration) {
        self.peer = peer
        self.baseURL = baseURL
        self.timeout = timeout
        self.configuration = nil
        state = Mutex(State(client: client))
    }

    var client: HTTPClient {
        state.withLock(\.client)
    }

    /// How often the connection was replaced (each time is logged as a warning).
    public var recycles: Int {
        state.withLock(\.recycles)
    }

    func answered() {
        state.withLock { $0.missedInARow = 0 }
    }

    func missedDeadline(method: String) {
        guard let configuration else { return }
        let now = ContinuousClock.now
        let retired: HTTPClient? = state.withLock { state in
            state.missedInARow += 1
            guard state.missedInARow >= Self.recycleAfter else { return nil }
            if let last = state.lastRecycle, now - last < timeout { return nil }
            let old = state.client
            state.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
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
            try? await retired.shutdown()
        }
    }

    /// Whether this connection is wedged: deadlines in a row went on for longer than twice the timeout
    /// after a recycle, while a call over a brand-new connection answers.
    public func isWedged(mode: DeploymentMode) async -> Bool {
        guard let configuration else { return false }
        let now = ContinuousClock.now
        let suspect = state.withLock { state in
            guard state.missedInARow >= Self.recycleAfter, let last = state.lastRecycle else { return false }
            return now - last > timeout * 2
        }
        guard suspect else { return false }
        let fresh = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { Task { try? await fresh.shutdown() } }
        let probe = RPCClient(
            peer: peer, connection: PeerConnection(peer: peer, baseURL: baseURL, sharing: fresh, timeout: .seconds(2)), mode: mode
        )
        do {
            _ = try await probe.call(Ping.self, RPCEmpty())
            return true
        } catch is RPCError {
            return true
        } catch {
            return false
        }
    }

    public func shutdown() async {
        guard configuration != nil else { return }
        try? await client.shutdown()
    }
}
