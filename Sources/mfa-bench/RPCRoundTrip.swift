import ArgumentParser
import AsyncHTTPClient
import Contracts
import Foundation
import Histogram
import JSONRPC
import ServiceKit

/// Closed-loop JSON-RPC round trips to one service over HTTP/2 with mutual TLS, as the gateway:
/// `concurrency` callers share one HTTPClient, hence one HTTP/2 connection, multiplexed.
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

    func run() async throws {
        guard let service = ServiceName(rawValue: target) else { throw ValidationError("unknown service \(target)") }
        guard Self.isLoopback(url) else { throw ValidationError("benchmarks target loopback only") }
        let tls = try MutualTLS(
            files: .init(
                caFile: "\(certificates)/ca.pem", certificateFile: "\(certificates)/\(caller).pem",
                privateKeyFile: "\(certificates)/\(caller)-key.pem"
            )
        )
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls.clientConfiguration
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let ports: [ServiceName: Int] = [.factorRegistry: 7101, .challengeIssuer: 7102, .sessionToken: 7103, .gateway: 7104]
        let client = RPCClient(
            peer: service, baseURL: url ?? "https://127.0.0.1:\(ports[service]!)", httpClient: httpClient,
            timeout: .seconds(10)
        )
        let call: @Sendable () async throws -> Void
        if method == "discover" {
            call = { _ = try await client.call(Discover.self, RPCEmpty()) }
        } else {
            call = { _ = try await client.call(Ping.self, RPCEmpty()) }
        }

        print("warming up \(warmup)s at \(concurrency) concurrent callers...")
        _ = try await Self.closedLoop(concurrency: concurrency, seconds: warmup, call: call)
        print("measuring \(duration)s...")
        let started = ContinuousClock.now
        let result = try await Self.closedLoop(concurrency: concurrency, seconds: duration, call: call)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let histogram = result.histogram
        print(
            String(
                format: "%@ %@ x%d: %.0f calls/s, p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms, %d calls, %d errors",
                target, "service.\(method)", concurrency, Double(histogram.totalCount) / seconds,
                Double(histogram.valueAtPercentile(50)) / 1000, Double(histogram.valueAtPercentile(90)) / 1000,
                Double(histogram.valueAtPercentile(99)) / 1000, Double(histogram.valueAtPercentile(99.9)) / 1000,
                Double(histogram.max) / 1000, Int(histogram.totalCount), result.errors
            )
        )
        try await httpClient.shutdown()
    }

    /// `concurrency` tasks call back to back until the time is up; latencies in microseconds.
    static func closedLoop(
        concurrency: Int, seconds: Double, call: @escaping @Sendable () async throws -> Void
    ) async throws -> (histogram: Histogram<UInt64>, errors: Int) {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        return await withTaskGroup(of: (Histogram<UInt64>, Int).self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
                    var errors = 0
                    while ContinuousClock.now < deadline {
                        let start = ContinuousClock.now
                        do {
                            try await call()
                            let elapsed = ContinuousClock.now - start
                            _ = histogram.record(UInt64(elapsed.components.seconds) * 1_000_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000_000))
                        } catch {
                            errors += 1
                        }
                    }
                    return (histogram, errors)
                }
            }
            var total = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
            var errors = 0
            for await (histogram, failed) in group {
                total.add(histogram)
                errors += failed
            }
            return (total, errors)
        }
    }

    static func isLoopback(_ url: String?) -> Bool {
        guard let url, let host = URLComponents(string: url)?.host else { return true }
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
