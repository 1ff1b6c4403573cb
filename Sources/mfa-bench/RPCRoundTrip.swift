import ArgumentParser
import Contracts
import Foundation
import JSONRPC
import ServiceKit
import ServiceTransport

/// Closed-loop JSON-RPC round trips to one service over HTTP/2 with mutual TLS, as the gateway:
/// `concurrency` callers share one ``PeerChannel``, hence its HTTP/2 connections, multiplexed.
struct RPCRoundTrip: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc", abstract: "JSON-RPC round trips (service.ping) over HTTP/2 + mutual TLS."
    )

    @Option(help: "Service to call.") var target: String = "factor-registry"
    @Option(help: "Base URL of its RPC listener (default: the local stack's port).") var url: String?
    @Option(help: "Directory with ca.pem and the caller's certificate.") var certificates: String = ".stack/certs"
    @Option(help: "Identity to call as (certificate <name>.pem).") var caller: String = "gateway"
    @Option(help: "Concurrent callers.") var concurrency: Int = 64
    @Option(help: "Seconds to measure.") var duration: Double = 10
    @Option(help: "Seconds to warm up first (not measured).") var warmup: Double = 2
    @Option(help: "Method: ping or discover.") var method: String = "ping"
    @Option(help: "The deployment mode the target runs in (calls declare it).") var mode: String = "development"
    @Option(help: "HTTP/2 connections the callers take turns on (default: as a service keeps to a peer, one per core).")
    var connections: Int = PeerConnection.connectionsPerPeer

    func run() async throws {
        guard let service = ServiceName(rawValue: target) else { throw ValidationError("unknown service \(target)") }
        guard let mode = DeploymentMode(rawValue: mode) else { throw ValidationError("mode is production or development") }
        guard Self.isLoopback(url) else { throw ValidationError("benchmarks target loopback only") }
        let tls = try MutualTLS(
            files: .init(
                caFile: "\(certificates)/ca.pem", certificateFile: "\(certificates)/\(caller).pem",
                privateKeyFile: "\(certificates)/\(caller)-key.pem"
            )
        )
        let ports: [ServiceName: Int] = [.factorRegistry: 7101, .challengeIssuer: 7102, .sessionToken: 7103, .gateway: 7104]
        guard connections >= 1 else { throw ValidationError("connections must be at least 1") }
        let channel = try PeerChannel(
            url: url ?? "https://127.0.0.1:\(ports[service]!)", tls: tls.clientConfiguration, connections: connections
        )
        let client = RPCClient(peer: service, over: channel, timeout: .seconds(10), mode: mode)
        let call: @Sendable () async throws -> Void
        if method == "discover" {
            call = { _ = try await client.call(Discover.self, RPCEmpty()) }
        } else {
            call = { _ = try await client.call(Ping.self, RPCEmpty()) }
        }

        print("warming up \(warmup)s at \(concurrency) concurrent callers...")
        _ = await ClosedLoop.run(concurrency: concurrency, seconds: warmup) { _ in try await call() }
        print("measuring \(duration)s...")
        let (streams, calls) = (channel.traffic.streamsSent, channel.traffic.callsSent)
        let result = await ClosedLoop.run(concurrency: concurrency, seconds: duration) { _ in try await call() }
        print(ClosedLoop.report("\(target) service.\(method)", concurrency: concurrency, seconds: duration, result))
        // Calls ready together share a stream as a JSON-RPC batch (PeerCallQueue).
        let (batchedCalls, usedStreams) = (channel.traffic.callsSent - calls, channel.traffic.streamsSent - streams)
        print(
            String(
                format: "calls per stream: %.2f (%d calls on %d streams)", Double(batchedCalls) / Double(max(1, usedStreams)), batchedCalls,
                usedStreams))
        await channel.close()
    }

    static func isLoopback(_ url: String?) -> Bool {
        guard let url, let host = URLComponents(string: url)?.host else { return true }
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
