import Contracts
import Foundation
import JSONRPC
import ServiceKit
import Synchronization
import Testing

/// The RPC listener written on swift-nio-http2 (issue 60): what it must keep from the listener it
/// replaced, beyond the inputs and identities the other transport suites cover.
@Suite("RPC listener: stopping under load, and idle connections", .serialized)
struct RPCListenerTests {
    @Test("a service asked to stop while calls pour in answers or refuses each of them and exits by itself with status 0")
    func stopsCleanlyUnderLoad() async throws {
        try await TestStack.with { stack in
            try await stack.start([.challengeIssuer])
            let client = try stack.client(to: .challengeIssuer, as: "gateway")
            let (answered, refused, done) = (Count(), Count(), Count())
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        // Calls go on until the listener is gone: each one answered, or refused as
                        // a transport error (never a hang past its deadline, never a crash).
                        while done.value == 0 {
                            do {
                                _ = try await client.call(Ping.self, RPCEmpty())
                                answered.add()
                            } catch is RPCTransportError {
                                refused.add()
                                try await Task.sleep(for: .milliseconds(20))
                            }
                        }
                    }
                }
                // Stopped in full flow: once calls are being answered (a loaded machine takes a while
                // to open the first connections).
                let clock = ContinuousClock()
                let patience = clock.now + .seconds(30)
                while answered.value < 200, clock.now < patience { try await Task.sleep(for: .milliseconds(20)) }
                #expect(answered.value >= 200)
                stack.process(.challengeIssuer).signalStop()
                try await Task.sleep(for: .seconds(3))
                done.add()
                try await group.waitForAll()
            }
            #expect(try await stack.process(.challengeIssuer).exitStatus(within: .seconds(20)) == 0)
            #expect(refused.value > 0)
            let log = stack.process(.challengeIssuer).logTail(200)
            // Not ended by the shutdown deadline (which also exits with 0): the listener stopped by itself.
            #expect(!log.contains("Fatal error") && !log.contains("shutdown did not finish in time"), "\(log)")
        }
    }
}

extension RPCListenerTests {
    @Test("a call longer than the idle time is answered: an idle connection is one without streams, not one without bytes")
    func longCallOutlivesIdle() async throws {
        try await TestStack.with(environment: ["HTTP_IDLE_TIMEOUT_SECONDS": "2"]) { stack in
            try await stack.start([.factorRegistry, .challengeIssuer, .sessionToken])
            let client = try stack.client(to: .factorRegistry, as: "gateway")
            let now = try await client.call(WatchSettings.self, .init(generation: nil, waitMilliseconds: 0))
            // A long poll with nothing to report: the connection carries no byte for 5 s either way.
            let clock = ContinuousClock()
            let started = clock.now
            let answered = try await client.allowing(.seconds(20)).call(
                WatchSettings.self, .init(generation: now.generation, waitMilliseconds: 5000)
            )
            #expect(answered.generation == now.generation)
            #expect(clock.now - started >= .seconds(4))
            // Then, idle for longer than the idle time, the connection is sent away and the next call
            // opens another, unharmed.
            try await Task.sleep(for: .seconds(3))
            _ = try await client.call(Ping.self, RPCEmpty())
        }
    }
}

/// A count several tasks add to.
private final class Count: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
