import Contracts
import Foundation
import JSONRPC
import ServiceKit
import ServiceTransport
import Synchronization
import Testing

/// The RPC listener written on swift-nio-http2 (issue 60): what it must keep from the listener it
/// replaced, beyond the inputs and identities the other transport suites cover; and what batches
/// must keep of single calls when a peer dies under them.
@Suite("RPC listener: stopping under load, idle connections, and a peer killed under batches", .serialized)
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
    @discardableResult func add() -> Int { count.add(1, ordering: .relaxed).newValue }
    var value: Int { count.load(ordering: .relaxed) }
}

extension RPCListenerTests {
    /// Issue 60's guarantee for batches: a batch is sent again only when the peer provably processed
    /// none of it. Each call adds a passkey under a fresh credential id (`passkey.add` shares
    /// batches), so a call the peer ran twice would come back `PASSKEY_EXISTS` to the one caller that
    /// ever sent that id.
    @Test("a peer killed with batches in flight loses no acknowledged write and runs no call twice")
    func peerKilledWithBatchesInFlight() async throws {
        try await TestStack.with { stack in
            try await stack.start([.factorRegistry, .challengeIssuer, .sessionToken])
            let registry = stack.process(.factorRegistry)
            let channel = try PeerChannel(url: registry.rpcURL, tls: try stack.pki.client(as: "gateway").clientConfiguration)
            let client = RPCClient(peer: .factorRegistry, over: channel, timeout: .seconds(10), mode: stack.mode)
            let (acknowledged, ranTwice) = (Names(), Names())
            let (cutOff, done, next) = (Count(), Count(), Count())
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<64 {
                    let owner = try await client.call(CreateAccount.self, .init(projectId: "demo-project")).localId
                    group.addTask {
                        while done.value == 0 {
                            // Base64url, as credential ids are: twelve characters, nine bytes.
                            let credentialId = String(format: "bt%010d", next.add())
                            let credential = PasskeyCredential(
                                credentialId: credentialId, publicKey: "pQID", algorithm: -7, signCount: 0, name: "Key"
                            )
                            do {
                                _ = try await client.call(
                                    AddPasskey.self,
                                    .init(projectId: "demo-project", localId: owner, credential: credential, maximumPerAccount: 1 << 20)
                                )
                                acknowledged.add(credentialId)
                            } catch let error as RPCError {
                                // PASSKEY_EXISTS would be a call run twice; any other answer is as wrong.
                                ranTwice.add("\(credentialId): \(error)")
                            } catch {
                                cutOff.add()
                                try await Task.sleep(for: .milliseconds(20))
                            }
                        }
                    }
                }
                let clock = ContinuousClock()
                let patience = clock.now + .seconds(60)
                while acknowledged.all.count < 600, clock.now < patience { try await Task.sleep(for: .milliseconds(20)) }
                registry.stop(crash: true)
                try await Task.sleep(for: .milliseconds(500))
                done.add()
                try await group.waitForAll()
            }
            // Calls did share streams, and the kill cut some off in flight.
            #expect(
                channel.traffic.callsSent > channel.traffic.streamsSent,
                "\(channel.traffic.callsSent) calls, \(channel.traffic.streamsSent) streams"
            )
            #expect(cutOff.value > 0)
            #expect(ranTwice.all.isEmpty, "\(ranTwice.all.prefix(5))")
            try registry.start()
            try await registry.waitForReadiness(stack.http)
            let written = Set(acknowledged.all)
            #expect(written.count >= 600)
            var found: Set<String> = []
            for credentialId in written {
                let passkey = try await client.call(FindPasskey.self, .init(projectId: "demo-project", credentialId: credentialId))
                found.insert(passkey.credential.credentialId)
            }
            #expect(found == written, "acknowledged but lost: \(written.subtracting(found).sorted().prefix(10))")
            await channel.close()
        }
    }
}

/// Names several tasks add to.
private final class Names: Sendable {
    private let names = Mutex<[String]>([])
    func add(_ name: String) { names.withLock { $0.append(name) } }
    var all: [String] { names.withLock { $0 } }
}
