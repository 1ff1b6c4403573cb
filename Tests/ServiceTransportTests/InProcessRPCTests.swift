import Foundation
import JSONRPC
import Logging
import Synchronization
import Testing

@testable import ServiceTransport

/// Calls between services in one process (`mfa-all-in-one`): the params reach the peer's handler as
/// values, through its dispatcher, with the same caller policy, errors, metrics and timeout as over
/// the network.
@Suite("In-process RPC")
struct InProcessRPCTests {
    enum Echo: RPCMethod {
        static let name = "echo.call"
        struct Params: Codable, Sendable { var text: String }
        struct Result: Codable, Sendable {
            var text: String
            var caller: String
            var requestID: String
        }
    }

    enum GatewayOnly: RPCMethod {
        static let name = "gatewayOnly.call"
        typealias Params = RPCEmpty
        typealias Result = RPCEmpty
    }

    enum Refuse: RPCMethod {
        static let name = "refuse.call"
        typealias Params = RPCEmpty
        typealias Result = RPCEmpty
    }

    enum Stall: RPCMethod {
        static let name = "stall.call"
        typealias Params = RPCEmpty
        typealias Result = RPCEmpty
    }

    enum Crash: RPCMethod {
        static let name = "crash.call"
        typealias Params = RPCEmpty
        typealias Result = RPCEmpty
    }

    struct SecretFailure: Error {
        let secret = "s3cr3t-123456"
    }

    /// The outcomes the peer's dispatcher reported, as its metrics would count them.
    final class Outcomes: RPCObserver {
        let seen = Mutex<[String]>([])
        func observe(method: String, outcome: RPCOutcome, duration: Duration) {
            seen.withLock { $0.append("\(method) \(outcome.rawValue)") }
        }
    }

    /// A session-token stand-in with one method of each kind, opened in `local`.
    func openPeer(in local: LocalPeers, observer: Outcomes? = nil) {
        var table = RPCMethodTable()
        table.register(Echo.self, callers: .anyAuthenticated) { params, context in
            .init(text: params.text, caller: context.caller, requestID: context.requestID)
        }
        table.register(GatewayOnly.self, callers: .only(["gateway"])) { _, _ in RPCEmpty() }
        table.register(Refuse.self, callers: .anyAuthenticated) { _, _ in
            throw RPCError(code: RPCErrorCode(-32050), identityToolkitError: "INVALID_MFA_PENDING_CREDENTIAL")
        }
        table.register(Stall.self, callers: .anyAuthenticated) { _, _ in
            try? await Task.sleep(for: .seconds(5))
            return RPCEmpty()
        }
        table.register(Crash.self, callers: .anyAuthenticated) { _, _ in throw SecretFailure() }
        local.open(.sessionToken, dispatcher: RPCDispatcher(table: table, observer: observer), logger: Logger(label: "session-token"))
    }

    func client(_ local: LocalPeers, caller: ServiceName, timeout: Duration = .seconds(5)) -> RPCClient {
        RPCClient(peer: .sessionToken, in: local, caller: caller, timeout: timeout)
    }

    @Test("the peer sees the caller's service name and the request id")
    func callerAndRequestID() async throws {
        let local = LocalPeers([.gateway, .sessionToken])
        openPeer(in: local)
        let result = try await client(local, caller: .gateway).call(Echo.self, .init(text: "hello"), requestID: "req-42")
        #expect(result.text == "hello")
        #expect(result.caller == "gateway")
        #expect(result.requestID == "req-42")
    }

    @Test("the method's caller policy applies as it does to a certificate")
    func callerPolicy() async throws {
        let local = LocalPeers([.gateway, .factorRegistry, .sessionToken])
        openPeer(in: local)
        _ = try await client(local, caller: .gateway).call(GatewayOnly.self, RPCEmpty())
        let error = await #expect(throws: RPCError.self) {
            try await client(local, caller: .factorRegistry).call(GatewayOnly.self, RPCEmpty())
        }
        #expect(error?.code == .callerNotAllowed)
    }

    @Test("an application error reaches the caller with its Identity Toolkit string")
    func applicationError() async throws {
        let local = LocalPeers([.gateway, .sessionToken])
        openPeer(in: local)
        let error = await #expect(throws: RPCError.self) {
            try await client(local, caller: .gateway).call(Refuse.self, RPCEmpty())
        }
        #expect(error?.identityToolkitError == "INVALID_MFA_PENDING_CREDENTIAL")
    }

    @Test("a service that has not finished starting is unreachable, as a closed port is")
    func notStarted() async throws {
        let local = LocalPeers([.gateway, .sessionToken])
        await #expect(throws: RPCTransportError.self) {
            try await client(local, caller: .gateway).call(Echo.self, .init(text: "early"))
        }
    }

    @Test("a peer that does not answer in time fails the call at the timeout, not later")
    func timeout() async throws {
        let local = LocalPeers([.gateway, .sessionToken])
        openPeer(in: local)
        let started = ContinuousClock.now
        await #expect(throws: RPCTransportError.self) {
            try await client(local, caller: .gateway, timeout: .milliseconds(200)).call(Stall.self, RPCEmpty())
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(200) && waited < .seconds(3))
    }

    @Test("a caller that is cancelled stops waiting at once instead of at the timeout")
    func cancelledCallerStopsWaiting() async throws {
        let local = LocalPeers([.gateway, .sessionToken])
        openPeer(in: local)
        // The timeout is far beyond the bound below, which leaves a loaded run (the whole suite on
        // 2 cores) seconds to schedule the cancelled task: once took 5.6 s there, never the timeout.
        let rpc = client(local, caller: .gateway, timeout: .seconds(120))
        let started = ContinuousClock.now
        let call = Task { try await rpc.call(Stall.self, RPCEmpty()) }
        try await Task.sleep(for: .milliseconds(100))
        call.cancel()
        await #expect(throws: RPCTransportError.self) { try await call.value }
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("a handler's own failure reaches the caller as an internal error with the request id, never its cause")
    func internalError() async throws {
        let local = LocalPeers([.gateway, .sessionToken])
        openPeer(in: local)
        let error = await #expect(throws: RPCError.self) {
            try await client(local, caller: .gateway).call(Crash.self, RPCEmpty(), requestID: "req-7")
        }
        #expect(error?.code == .internalError)
        #expect(error?.data == .object(["requestId": .string("req-7")]))
        let described = error.map { "\($0) \(String(describing: $0.data))" } ?? ""
        #expect(!described.contains("s3cr3t"))
    }

    @Test("every in-process call is counted by method and outcome, as a network request is")
    func metrics() async throws {
        let local = LocalPeers([.gateway, .factorRegistry, .sessionToken])
        let outcomes = Outcomes()
        openPeer(in: local, observer: outcomes)
        _ = try await client(local, caller: .gateway).call(Echo.self, .init(text: "counted"))
        _ = try? await client(local, caller: .gateway).call(Refuse.self, RPCEmpty())
        _ = try? await client(local, caller: .factorRegistry).call(GatewayOnly.self, RPCEmpty())
        _ = try? await client(local, caller: .gateway).call(Crash.self, RPCEmpty())
        #expect(
            outcomes.seen.withLock { $0 } == [
                "echo.call success", "refuse.call protocol_error", "gatewayOnly.call protocol_error",
                "crash.call internal_error",
            ]
        )
    }
}
