import DevelopmentPKI
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOSSL
import ServiceLifecycle
import Synchronization
import Testing

@testable import ServiceTransport

/// ``PeerChannel`` against a real HTTP/2 listener with mutual TLS, built as every service's RPC
/// listener is (`ListenerLimits.http2Upgrade`).
@Suite("Peer channel")
struct PeerChannelTests {
    static let logger = Logger(label: "test")

    /// A listener whose `/echo` answers the body it got, `/big` a body of the size asked, `/slow`
    /// after five seconds; `idle` is how long it keeps a connection without streams before GOAWAY.
    /// `body` gets a channel to it, closed before the listener stops (a listener stopping under
    /// streams that still arrive is not what these tests are about), and what made it.
    static func withPeer(
        idle: Duration = .seconds(60),
        _ body: @Sendable (_ channel: PeerChannel, _ url: String, _ tls: TLSConfiguration) async throws -> Void
    ) async throws {
        let authority = try CertificateAuthority(commonName: "peer channel test CA")
        let server = try authority.issue(commonName: "factor-registry", hosts: ["127.0.0.1"])
        let client = try authority.issue(commonName: "gateway", hosts: ["127.0.0.1"])
        let serverTLS = try MutualTLS(
            certificatePEM: server.certificatePEM, privateKeyPEM: server.privateKeyPEM, caPEM: try authority.certificatePEM
        )
        let clientTLS = try MutualTLS(
            certificatePEM: client.certificatePEM, privateKeyPEM: client.privateKeyPEM, caPEM: try authority.certificatePEM
        )
        let router = Router()
        router.post("echo") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: bytes))
        }
        router.post("big") { request, _ -> Response in
            let size = Int(String(buffer: try await request.body.collect(upTo: 64))) ?? 0
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: UInt8(ascii: "x"), count: size)))
        }
        router.post("slow") { _, _ -> Response in
            try await Task.sleep(for: .seconds(5))
            return Response(status: .ok)
        }
        let port = Mutex<Int?>(nil)
        let limits = ListenerLimits(idle: idle)
        let listener = HTTPListener(
            router: router, server: try limits.http2Upgrade(tlsConfiguration: serverTLS.serverConfiguration),
            address: .hostname("127.0.0.1", port: 0), logger: logger,
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } }
        )
        let group = ServiceGroup(configuration: .init(services: [listener], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for _ in 0..<500 where port.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
            let bound = try #require(port.withLock { $0 })
            let (url, tls) = ("https://127.0.0.1:\(bound)", clientTLS.clientConfiguration)
            let channel = try PeerChannel(url: url, tls: tls)
            let outcome: Result<Void, any Error>
            do {
                try await body(channel, url, tls)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await channel.close()
            await group.triggerGracefulShutdown()
            try outcome.get()
            try await tasks.next()
        }
    }

    /// `id` is the id of the JSON-RPC request `text` stands for: calls sent at once share a stream as
    /// a batch, and `/echo` answers a batch with its own members, each matched to its call by id.
    static func post(
        _ channel: PeerChannel, _ path: String, _ text: String, id: Int64 = 0, limit: Int = 1 << 20, deadline: Duration = .seconds(30)
    ) async throws -> String {
        let answer = try await channel.call(
            path: path, headers: [("content-type", "application/json")], request: ByteBuffer(string: text), id: .int(id),
            limit: limit, deadline: deadline
        )
        #expect(answer.status == 200)
        return String(buffer: answer.body)
    }

    @Test("one connection carries 150 calls at once, batched as they are ready together, each answered with its own member")
    func manyCallsAtOnce() async throws {
        try await Self.withPeer { (channel, url, tls) async throws in
            let answers = try await withThrowingTaskGroup(of: (Int, String).self) { calls in
                for index in 0..<150 {
                    calls.addTask {
                        (index, try await Self.post(channel, "/echo", "{\"id\":\(index)}", id: Int64(index), deadline: .seconds(60)))
                    }
                }
                return try await calls.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            #expect(answers.count == 150)
            #expect(answers.allSatisfy { $0.value == "{\"id\":\($0.key)}" })
            // All 150 waited for the first connection, then left together: at most 32 to a stream.
            #expect(channel.traffic.callsSent == 150)
            #expect(channel.traffic.streamsSent < 150)
            #expect(channel.traffic.streamsSent >= 150 / PeerCallQueue.maximumBatch)
            #expect(channel.connectionsOpened == 1)
            await channel.close()
        }
    }

    @Test("a call that the batch's answer leaves out fails alone; the batch's other calls are answered")
    func unmatchedMemberFailsAlone() async throws {
        try await Self.withPeer { (channel, url, tls) async throws in
            // Opened first, so the calls below find the connection ready and queue together.
            #expect(try await Self.post(channel, "/echo", "{}") == "{}")
            // The echo answers what was sent: the last call's member carries another id than its own.
            let bodies = (1...8).map { #"{"id":\#($0 == 8 ? 99 : $0)}"# }
            let outcomes = await withTaskGroup(of: (Int, Result<String, any Error>).self) { calls in
                for index in 1...8 {
                    calls.addTask {
                        do {
                            return (index, .success(try await Self.post(channel, "/echo", bodies[index - 1], id: Int64(index))))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                return await calls.reduce(into: [Int: Result<String, any Error>]()) { $0[$1.0] = $1.1 }
            }
            for index in 1...7 {
                #expect((try? outcomes[index]?.get()) == bodies[index - 1])
            }
            switch outcomes[8] {
            case .failure(PeerExchangeError.incomplete)?: break
            // Sent alone, it is answered as a lone request: the body is its answer, whatever its id.
            case .success(let text)?: #expect(text == bodies[7])
            default: Issue.record("unexpected \(String(describing: outcomes[8]))")
            }
            await channel.close()
        }
    }

    @Test(
        "queued calls are cut into batches of at most 32 calls and 64 KiB that agree on head and deadline, in queue order; a call that goes alone is a batch of one"
    )
    func batchBoundaries() {
        let loop = EmbeddedEventLoop()
        func call(_ path: String, _ seconds: Int64, alone: Bool = false, bytes: Int = 100) -> PeerCall {
            var head = HPACKHeaders()
            head.add(name: ":path", value: path)
            return PeerCall(
                head: head, deadline: .seconds(seconds), request: ByteBuffer(repeating: UInt8(ascii: " "), count: bytes), id: .int(0),
                alone: alone, limit: 1, promise: loop.makePromise()
            )
        }
        let third = PeerCallQueue.maximumBatchBytes / 3
        let calls =
            Array(repeating: call("/rpc", 5), count: 40) + [call("/rpc", 300), call("/rpc", 5), call("/other", 5)]
            + [call("/rpc", 5), call("/rpc", 5, alone: true), call("/rpc", 5), call("/rpc", 5)]
            // Bytes: the two small calls before them and three thirds are over the limit, so the third
            // third starts a batch; a call over the limit goes alone.
            + [call("/rpc", 5, bytes: third), call("/rpc", 5, bytes: third), call("/rpc", 5, bytes: third)]
            + [call("/rpc", 5, bytes: PeerCallQueue.maximumBatchBytes * 2), call("/rpc", 5)]
        #expect(
            PeerCallQueue.batches(calls) == [
                0..<32, 32..<40, 40..<41, 41..<42, 42..<43, 43..<44, 44..<45, 45..<49, 49..<50, 50..<51, 51..<52,
            ]
        )
        for pending in calls { pending.promise.fail(ChannelError.ioOnClosedChannel) }
    }

    @Test("an answer larger than the limit is refused, and the connection answers the next call")
    func answerOverTheLimit() async throws {
        try await Self.withPeer { (channel, url, tls) async throws in
            #expect(try await Self.post(channel, "/big", "4096", limit: 4096).count == 4096)
            await #expect {
                _ = try await Self.post(channel, "/big", "200000", limit: 4096)
            } throws: { error in
                if case PeerExchangeError.answerTooLarge(4096) = error { return true }
                return false
            }
            #expect(try await Self.post(channel, "/echo", "after") == "after")
            await channel.close()
        }
    }

    @Test("a call past its deadline ends at its deadline, not at the answer; the connection's other calls go on")
    func deadline() async throws {
        try await Self.withPeer { (channel, url, tls) async throws in
            let slow = Task { try await Self.post(channel, "/slow", "", deadline: .milliseconds(300)) }
            #expect(try await Self.post(channel, "/echo", "beside") == "beside")
            let outcome = await slow.result
            guard case .failure(PeerExchangeError.deadlineExceeded) = outcome else {
                Issue.record("expected the deadline, got \(outcome)")
                return
            }
            #expect(try await Self.post(channel, "/echo", "after") == "after")
            await channel.close()
        }
    }

    @Test("calls keep being answered while the peer sends idle connections away (GOAWAY) and closes them")
    func peerSendsTheConnectionAway() async throws {
        // An idle time of a second, not less: a retry's fresh connection must reach the peer with its
        // call before the peer finds it idle too, which on a loaded 2-core run (the whole suite beside
        // it) took more than the half second this test first used, three attempts in a row.
        try await Self.withPeer(idle: .milliseconds(1000)) { (channel, url, tls) async throws in
            // Pauses around the peer's idle time: some calls meet a connection just sent away.
            for (index, pause) in [0, 1050, 980, 1020, 1000, 2600, 1010, 990].enumerated() {
                try await Task.sleep(for: .milliseconds(pause))
                #expect(try await Self.post(channel, "/echo", "call \(index)") == "call \(index)")
            }
            // The peer did send connections away: the calls went over several.
            #expect(channel.connectionsOpened >= 3)
            await channel.close()
        }
    }

    @Test("a closed channel refuses calls; an address that is not https://host is refused at once")
    func closedAndMalformed() async throws {
        try await Self.withPeer { (channel, url, tls) async throws in
            #expect(try await Self.post(channel, "/echo", "open") == "open")
            await channel.close()
            await #expect(throws: (any Error).self) { _ = try await Self.post(channel, "/echo", "closed") }
            #expect(throws: PeerURLError.self) { _ = try PeerChannel(url: "http://127.0.0.1:1", tls: tls) }
            #expect(throws: PeerURLError.self) { _ = try PeerChannel(url: "not a url", tls: tls) }
        }
    }
}
