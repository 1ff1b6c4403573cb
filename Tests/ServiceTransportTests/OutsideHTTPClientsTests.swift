import AsyncHTTPClient
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing

@testable import ServiceTransport

/// Issue 57, F-5: an outside call's checks (https only, a public address) held for its first URL only,
/// and AsyncHTTPClient followed up to five redirects past them. Every outside client (SMS providers,
/// reCAPTCHA, Play Integrity, identity providers, blocking functions, the SMS defence's webhook)
/// comes from ``OutsideHTTPClients``: a redirect reaches its caller as the 3xx it is.
@Suite("Outside HTTP clients")
struct OutsideHTTPClientsTests {
    static let logger = Logger(label: "test")

    @Test("a 307, 302 or 301 answer is handed to the caller, and its target is never called", arguments: [307, 302, 301])
    func redirectsAreNotFollowed(status: Int) async throws {
        let reached = Atomic<Int>(0)
        let port = Mutex<Int?>(nil)
        let router = Router()
        router.post("function") { _, _ in
            let bound = port.withLock { $0 } ?? 0
            return Response(
                status: .init(code: status), headers: [.location: "http://127.0.0.1:\(bound)/elsewhere"], body: .init()
            )
        }
        router.post("elsewhere") { _, _ in
            reached.add(1, ordering: .relaxed)
            return "reached"
        }
        let listener = HTTPListener(
            router: router, address: .hostname("127.0.0.1", port: 0), logger: Self.logger,
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } }
        )
        let outside = OutsideHTTPClients()
        let group = ServiceGroup(configuration: .init(services: [listener], logger: Self.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for _ in 0..<500 where port.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
            let bound = try #require(port.withLock { $0 })
            let client = try outside.client(extraTrustRootsFile: nil)
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(bound)/function")
            request.method = .POST
            request.body = .bytes(ByteBuffer(string: #"{"event":"token"}"#))
            let response = try await client.execute(request, timeout: .seconds(10))
            #expect(response.status.code == status)
            #expect(reached.load(ordering: .relaxed) == 0)
            await outside.shutdown()
            await group.triggerGracefulShutdown()
            try await tasks.next()
        }
    }
}
