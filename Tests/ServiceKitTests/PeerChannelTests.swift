import DevelopmentPKI
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization
import Testing

@testable import ServiceKit

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

    static func post(_ channel: PeerChannel, _ path: String, _ text: String, limit: Int = 1 << 20, deadline: Duration = .seconds(30))
        async throws -> String
    {
        let answer = try await channel.post(
            path: path, headers: [("content-type", "application/json")], body: ByteBuffer(string: text), limit: limit,
            deadline: deadline
        )
        #expect(answer.status == 200)
        return String(buffer: answer.body)
    }

    @Test("one connection carries 150 calls at once, past the peer's limit of open streams, each answered with its own body")
    func manyCallsAtOnce() async throws {
        try await Self.withPeer { (channel, url, tls) async throws in
            let answers = try await withThrowingTaskGroup(of: (Int, String).self) { calls in
                for index in 0..<150 {
                    calls.addTask { (index, try await Self.post(channel, "/echo", "{\"call\":\(index)}", deadline: .seconds(60))) }
                }
                return try await calls.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            #expect(answers.count == 150)
            #expect(answers.allSatisfy { $0.value == "{\"call\":\($0.key)}" })
            #expect(channel.connectionsOpened == 1)
            await channel.close()
        }
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
        try await Self.withPeer(idle: .milliseconds(500)) { (channel, url, tls) async throws in
            // Pauses around the peer's idle time: some calls meet a connection just sent away.
            for (index, pause) in [0, 550, 480, 520, 500, 1800, 510, 490].enumerated() {
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
