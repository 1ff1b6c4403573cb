import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import Testing

@testable import ServiceTransport

@Suite("HTTP listener")
struct HTTPListenerTests {
    static let logger = Logger(label: "test")

    @Test("the Date header is RFC 9110's IMF-fixdate in GMT with English names")
    func dateHeaderFormat() {
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")  // RFC 9110's example
        #expect(HTTPDate.format(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSince1970: 951_868_799) == "Tue, 29 Feb 2000 23:59:59 GMT")
        #expect(HTTPDate.format(secondsSince1970: 1_795_478_400) == "Tue, 24 Nov 2026 00:00:00 GMT")
    }

    @Test("responses carry the Date and Server headers, requests a context id; a graceful shutdown stops the listener")
    func servesWithDateAndServer() async throws {
        let router = Router()
        router.get("hello") { _, context in "hi \(context.id.isEmpty ? "without" : "with") an id" }
        let port = Mutex<Int?>(nil)
        let listener = HTTPListener(
            router: router, address: .hostname("127.0.0.1", port: 0), serverName: "test-service", logger: Self.logger,
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } }
        )
        let group = ServiceGroup(configuration: .init(services: [listener], logger: Self.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for _ in 0..<500 where port.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
            let bound = try #require(port.withLock { $0 })
            let before = Int(Date().timeIntervalSince1970)
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(bound)/hello"), timeout: .seconds(10)
            )
            let after = Int(Date().timeIntervalSince1970)
            #expect(response.status == .ok)
            #expect(response.headers["server"] == ["test-service"])
            let date = try #require(response.headers["date"].first)
            // The second the answer was made in, whichever it was on a loaded machine.
            #expect((before...after).contains { HTTPDate.format(secondsSince1970: $0) == date })
            #expect(String(buffer: try await response.body.collect(upTo: 1024)) == "hi with an id")
            await group.triggerGracefulShutdown()
            try await tasks.next()
        }
    }

    @Test("a port already in use fails the listener at once, without waiting for anything else to stop")
    func takenPortFailsAtOnce() async throws {
        let taken = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(taken.localAddress?.port)
        let listener = HTTPListener(router: Router(), address: .hostname("127.0.0.1", port: port), logger: Self.logger)
        let started = ContinuousClock.now
        await #expect(throws: (any Error).self) { try await listener.run() }
        #expect(ContinuousClock.now - started < .seconds(5))
        try await taken.close()
    }
}
