import JSONRPC
import NIOSSL
import Testing

@testable import ServiceTransport

@Suite("Peer connection")
struct PeerConnectionTests {
    /// The liveness call a service makes over a brand-new connection (its own `service.ping`).
    enum Probe: RPCMethod {
        static let name = "service.ping"
        typealias Params = RPCEmpty
        typealias Result = RPCEmpty
    }

    static let probe: @Sendable (RPCClient) async throws -> Void = { _ = try await $0.call(Probe.self, RPCEmpty()) }

    static func connection(timeout: Duration = .seconds(60)) throws -> PeerConnection {
        try PeerConnection(
            peer: .factorRegistry, baseURL: "https://127.0.0.1:1", tls: TLSConfiguration.makeClientConfiguration(), timeout: timeout
        )
    }

    @Test("three deadlines in a row replace the connection; an answer between them starts the count again")
    func recyclesAfterDeadlinesInARow() async throws {
        let connection = try Self.connection()
        let first = connection.channel
        connection.missedDeadline(method: "m")
        connection.missedDeadline(method: "m")
        connection.answered()
        connection.missedDeadline(method: "m")
        connection.missedDeadline(method: "m")
        #expect(connection.channel === first)
        #expect(connection.recycles == 0)
        connection.missedDeadline(method: "m")
        #expect(connection.channel !== first)
        #expect(connection.recycles == 1)
        await connection.shutdown()
    }

    @Test("a new connection is not replaced again before it has had one timeout's time")
    func recyclesAtMostOncePerTimeout() async throws {
        let connection = try Self.connection(timeout: .milliseconds(300))
        for _ in 0..<3 { connection.missedDeadline(method: "m") }
        let second = connection.channel
        for _ in 0..<5 { connection.missedDeadline(method: "m") }
        #expect(connection.channel === second)
        try await Task.sleep(for: .milliseconds(400))
        connection.missedDeadline(method: "m")
        #expect(connection.channel !== second)
        #expect(connection.recycles == 2)
        await connection.shutdown()
    }

    @Test("a connection someone else owns is never replaced, and liveness never blames it")
    func sharedChannelStays() async throws {
        let shared = try PeerChannel(url: "https://127.0.0.1:1", tls: TLSConfiguration.makeClientConfiguration())
        let connection = PeerConnection(peer: .factorRegistry, sharing: shared, timeout: .seconds(1))
        for _ in 0..<10 { connection.missedDeadline(method: "m") }
        #expect(connection.channel === shared)
        #expect(await connection.isWedged(mode: .production, probe: Self.probe) == false)
        await shared.close()
    }

    @Test("deadlines right after a replacement are not a wedge yet; a peer nobody can reach is never one")
    func wedgeNeedsAnAnsweringPeer() async throws {
        let connection = try Self.connection(timeout: .milliseconds(100))
        for _ in 0..<3 { connection.missedDeadline(method: "m") }
        #expect(await connection.isWedged(mode: .production, probe: Self.probe) == false)
        try? await Task.sleep(for: .milliseconds(250))
        // Past twice the timeout, deadlines still in a row: the probe's new connection is refused
        // (nothing listens on port 1), so the peer is down, not this process's connection wedged.
        #expect(await connection.isWedged(mode: .production, probe: Self.probe) == false)
        await connection.shutdown()
    }
}
