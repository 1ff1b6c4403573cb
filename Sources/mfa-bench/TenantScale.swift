import ArgumentParser
import AsyncHTTPClient
import Foundation
import Histogram
import JSONRPC
import NIOCore
import NIOHTTP1

/// Many tenants: creates `count` tenants through the admin REST API (each provisions a schema in
/// every data service before it answers), then compares signInWithPassword latency in the first
/// and the last tenant, then deletes them all, timing each deletion.
struct TenantScale: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants", abstract: "Create N tenants, compare sign-in latency in tenant #1 and #N, delete them."
    )

    @Option(help: "The gateway's public URL (loopback only).") var gateway: String = "http://127.0.0.1:8080"
    @Option(help: "The admin bearer token.") var adminToken: String = "owner"
    @Option(help: "Tenants to create.") var count: Int = 1000
    @Option(help: "Concurrent creations.") var createConcurrency: Int = 4
    @Option(help: "Concurrent clients for the sign-in comparison.") var concurrency: Int = 16
    @Option(help: "Seconds of sign-ins per measured tenant.") var duration: Double = 10
    @Flag(help: "Keep the tenants instead of deleting them.") var keep = false

    func run() async throws {
        guard RPCRoundTrip.isLoopback(gateway) else { throw ValidationError("benchmarks target loopback only") }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(concurrency, 8))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { _ = client.shutdown() }
        let api = PublicClient(client: client, gateway: gateway)
        let admin = AdminClient(client: client, gateway: gateway, token: adminToken)
        let run = UUID().uuidString.prefix(6).lowercased()

        print("creating \(count) tenants, \(createConcurrency) at a time...")
        let started = ContinuousClock.now
        let created = try await timed(count, concurrency: createConcurrency) { index in
            let tenant = try await admin.send(
                .POST, "v2/projects/demo-project/tenants",
                ["displayName": .string("bench-\(run)-\(index)"), "allowPasswordSignup": true]
            )
            guard let id = tenant["tenantId"]?.stringValue else { throw BenchFailure(message: "no tenantId") }
            return id
        }
        let elapsed = Self.seconds(ContinuousClock.now - started)
        print(
            Self.line(
                "tenant create", created.histogram,
                extra: String(format: "%.1f s in all, %.1f ms per tenant", elapsed, elapsed * 1000 / Double(count))))

        let ids = created.values.sorted { $0.index < $1.index }.map(\.value)
        let password = "bench-password-\(run)"
        for (label, tenantId) in [("tenant #1", ids[0]), ("tenant #\(count)", ids[ids.count - 1])] {
            let email = "scale-\(run)@bench.example"
            _ = try await api.post(
                "v1/accounts:signUp", ["tenantId": .string(tenantId), "email": .string(email), "password": .string(password)])
            let call: @Sendable (Int) async throws -> Void = { _ in
                _ = try await api.post(
                    "v1/accounts:signInWithPassword",
                    ["tenantId": .string(tenantId), "email": .string(email), "password": .string(password)]
                )
            }
            _ = await ClosedLoop.run(concurrency: concurrency, seconds: 2, call: call)
            let result = await ClosedLoop.run(concurrency: concurrency, seconds: duration, call: call)
            print(ClosedLoop.report("signIn in \(label)", concurrency: concurrency, seconds: duration, result))
        }

        if keep { return }
        print("deleting \(ids.count) tenants...")
        let deleted = try await timed(ids.count, concurrency: createConcurrency) { index in
            _ = try await admin.send(.DELETE, "v2/projects/demo-project/tenants/\(ids[index])", nil)
            return ids[index]
        }
        print(Self.line("tenant delete", deleted.histogram, extra: ""))
    }

    struct Indexed: Sendable {
        let index: Int
        let value: String
    }

    /// Runs `operation` for 0..<total with `concurrency` workers; latencies in microseconds.
    func timed(_ total: Int, concurrency: Int, _ operation: @escaping @Sendable (Int) async throws -> String) async throws
        -> (histogram: Histogram<UInt64>, values: [Indexed])
    {
        let next = Counter()
        return try await withThrowingTaskGroup(of: (Histogram<UInt64>, [Indexed]).self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var histogram = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
                    var values: [Indexed] = []
                    while true {
                        let index = await next.next() - 1
                        if index >= total { break }
                        let start = ContinuousClock.now
                        values.append(Indexed(index: index, value: try await operation(index)))
                        let elapsed = ContinuousClock.now - start
                        _ = histogram.record(UInt64(max(0, Self.seconds(elapsed) * 1_000_000)))
                    }
                    return (histogram, values)
                }
            }
            var total = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
            var all: [Indexed] = []
            for try await (histogram, values) in group {
                total.add(histogram)
                all += values
            }
            return (total, all)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func line(_ name: String, _ histogram: Histogram<UInt64>, extra: String) -> String {
        func ms(_ percentile: Double) -> String { String(format: "%.1f", Double(histogram.valueAtPercentile(percentile)) / 1000) }
        return "\(name): n=\(histogram.totalCount), p50 \(ms(50)) ms, p90 \(ms(90)) ms, p99 \(ms(99)) ms, max \(ms(100)) ms"
            + (extra.isEmpty ? "" : "; \(extra)")
    }
}

/// Admin REST calls with a bearer token.
struct AdminClient: Sendable {
    let client: HTTPClient
    let gateway: String
    let token: String

    func send(_ method: HTTPMethod, _ path: String, _ body: JSONValue?) async throws -> JSONValue {
        var request = HTTPClientRequest(url: "\(gateway)/\(path)")
        request.method = method
        request.headers.add(name: "authorization", value: "Bearer \(token)")
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONCoding.encode(body)))
        }
        let response = try await client.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let answer = try JSONCoding.parse(Array(buffer: bytes))
        guard response.status == .ok else {
            throw BenchFailure(message: answer["error"]?["message"]?.stringValue ?? "HTTP \(response.status.code)")
        }
        return answer
    }
}
