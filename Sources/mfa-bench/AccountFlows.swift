import ArgumentParser
import AsyncHTTPClient
import Foundation
import JSONRPC
import NIOCore

/// The first-factor and token flows through the gateway's public API, as apps call them:
/// `signup` (email/password accounts), `signin` (signInWithPassword of prepared users), `refresh`
/// (each caller rotating its own refresh token). Closed loop; the password hash parameters are the
/// stack's (`passwords.scrypt.*`), which every report should state.
struct AccountFlows: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts", abstract: "signUp, signInWithPassword and token refresh through the gateway."
    )

    @Option(help: "signup, signin or refresh.") var scenario: String = "signin"
    @Option(help: "The gateway's public URL (loopback only).") var gateway: String = "http://127.0.0.1:8080"
    @Option(help: "Concurrent clients.") var concurrency: Int = 64
    @Option(help: "Seconds to measure.") var duration: Double = 10
    @Option(help: "Seconds to warm up first (not measured).") var warmup: Double = 2
    @Option(help: "Users prepared for signin.") var users: Int = 200

    func run() async throws {
        guard RPCRoundTrip.isLoopback(gateway) else { throw ValidationError("benchmarks target loopback only") }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { _ = client.shutdown() }
        let api = PublicClient(client: client, gateway: gateway)
        let run = UUID().uuidString.prefix(8).lowercased()
        let password = "bench-password-\(run)"

        let call: @Sendable (Int) async throws -> Void
        switch scenario {
        case "signup":
            let counter = Counter()
            call = { caller in
                let n = await counter.next()
                _ = try await api.post(
                    "v1/accounts:signUp", ["email": .string("su-\(run)-\(caller)-\(n)@bench.example"), "password": .string(password)])
            }
        case "signin":
            print("preparing \(users) users...")
            for index in 0..<users {
                _ = try await api.post(
                    "v1/accounts:signUp", ["email": .string("si-\(run)-\(index)@bench.example"), "password": .string(password)])
            }
            let count = users
            call = { caller in
                let index = Int.random(in: 0..<count)
                _ = try await api.post(
                    "v1/accounts:signInWithPassword", ["email": .string("si-\(run)-\(index)@bench.example"), "password": .string(password)])
            }
        case "refresh":
            print("preparing \(concurrency) sessions...")
            let tokens = TokenChains()
            for caller in 0..<concurrency {
                let answer = try await api.post(
                    "v1/accounts:signUp", ["email": .string("rf-\(run)-\(caller)@bench.example"), "password": .string(password)])
                await tokens.set(caller, answer["refreshToken"]?.stringValue ?? "")
            }
            call = { caller in
                let current = await tokens.get(caller)
                let answer = try await api.post(
                    "securetoken.googleapis.com/v1/token", ["grant_type": "refresh_token", "refresh_token": .string(current)], prefix: false
                )
                guard let next = answer["refresh_token"]?.stringValue else { throw BenchFailure(message: "no refresh_token") }
                await tokens.set(caller, next)
            }
        default:
            throw ValidationError("unknown scenario \(scenario)")
        }
        print("warming up \(warmup)s...")
        _ = await ClosedLoop.run(concurrency: concurrency, seconds: warmup, call: call)
        print("measuring \(duration)s at \(concurrency) concurrent clients...")
        let result = await ClosedLoop.run(concurrency: concurrency, seconds: duration, call: call)
        print(ClosedLoop.report(scenario, concurrency: concurrency, seconds: duration, result))
    }
}

/// JSON POSTs to the gateway with an API key; an error envelope becomes a thrown failure.
struct PublicClient: Sendable {
    let client: HTTPClient
    let gateway: String

    func post(_ path: String, _ body: [String: JSONValue], prefix: Bool = true) async throws -> JSONValue {
        let url = "\(gateway)/\(prefix ? "identitytoolkit.googleapis.com/" : "")\(path)?key=bench"
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONCoding.encode(JSONValue.object(body))))
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let answer = try JSONCoding.parse(Array(buffer: bytes))
        guard response.status == .ok else {
            throw BenchFailure(message: answer["error"]?["message"]?.stringValue ?? "HTTP \(response.status.code)")
        }
        return answer
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

actor Counter {
    private var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}

actor TokenChains {
    private var tokens: [Int: String] = [:]
    func get(_ caller: Int) -> String { tokens[caller] ?? "" }
    func set(_ caller: Int, _ token: String) { tokens[caller] = token }
}
