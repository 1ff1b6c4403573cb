import AsyncHTTPClient
import Contracts
import Crypto
import Foundation
import JSONRPC
import NIOCore
import ServiceKit
import ServiceTransport
import Testing

@Suite("Ops listener: health, readiness, metrics, admin", .serialized)
struct OpsListenerTests {
    static func get(_ stack: TestStack, _ service: ServiceName, _ path: String, bearer: String? = nil) async throws
        -> (status: Int, body: String)
    {
        var request = HTTPClientRequest(url: "\(stack.process(service).opsURL)\(path)")
        if let bearer { request.headers.add(name: "authorization", value: "Bearer \(bearer)") }
        let response = try await stack.http.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    @Test("healthz, metrics per RPC method, and admin status only with an admin credential (development mode)")
    func developmentMode() async throws {
        try await TestStack.with { stack in
            try await stack.start([.challengeIssuer])
            #expect(try await Self.get(stack, .challengeIssuer, "/healthz").status == 200)
            _ = try await stack.client(to: .challengeIssuer, as: "gateway").call(Discover.self, RPCEmpty())
            let metrics = try await Self.get(stack, .challengeIssuer, "/metrics")
            #expect(metrics.body.contains(#"mfa_rpc_requests_total{service="challenge-issuer",method="rpc.discover",outcome="success"}"#))
            #expect(metrics.body.contains("mfa_rpc_request_duration_seconds_bucket"))

            #expect(try await Self.get(stack, .challengeIssuer, "/admin/status").status == 401)
            #expect(try await Self.get(stack, .challengeIssuer, "/admin/status", bearer: "not-the-token").status == 401)
            let status = try await Self.get(stack, .challengeIssuer, "/admin/status", bearer: "owner")
            #expect(status.status == 200)
            let document = try JSONCoding.parse(Array(status.body.utf8))
            #expect(document["service"] == "challenge-issuer")
            #expect(document["database"]?["ready"] == .bool(true))
        }
    }

    @Test("in production mode only a configured admin token works; Bearer owner is refused")
    func productionMode() async throws {
        let token = "admin-token-\(UUID().uuidString)"
        let hash = SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
        try await TestStack.with(environment: ["MODE": "production", "ADMIN_TOKEN_SHA256": hash]) { stack in
            try await stack.start([.challengeIssuer])
            #expect(try await Self.get(stack, .challengeIssuer, "/admin/status", bearer: "owner").status == 401)
            #expect(try await Self.get(stack, .challengeIssuer, "/admin/status", bearer: token).status == 200)
            // The log never holds the token.
            #expect(!stack.process(.challengeIssuer).logTail(500).contains(token))
        }
    }

    @Test("the gateway is ready only while it reaches every service over mutual TLS")
    func gatewayReadinessFollowsPeers() async throws {
        try await TestStack.with { stack in
            try await stack.start([.factorRegistry, .challengeIssuer, .sessionToken, .gateway])
            stack.process(.challengeIssuer).stop()
            try await stack.process(.gateway).waitForReadiness(stack.http, ready: false, timeout: 15)
            let readiness = try await Self.get(stack, .gateway, "/readyz")
            #expect(readiness.status == 503)
            #expect(readiness.body.contains("challenge-issuer"))
            try await stack.start([.challengeIssuer])
            try await stack.process(.gateway).waitForReadiness(stack.http, timeout: 15)
        }
    }

    /// Through PostgreSQL's Unix socket, as `scripts/stack.sh` connects: the pool reconnects there too.
    @Test("readiness goes unready when PostgreSQL stops and recovers when it returns")
    func readinessFollowsPostgres() async throws {
        try await PrivatePostgres.with("mfa-pg") { postgres in
            try await TestStack.with(postgresBaseURL: postgres.socketBaseURL) { stack in
                try await stack.start([.challengeIssuer])
                try await postgres.stop()
                try await stack.process(.challengeIssuer).waitForReadiness(stack.http, ready: false, timeout: 20)
                #expect(try await Self.get(stack, .challengeIssuer, "/healthz").status == 200)
                try await postgres.start()
                try await stack.process(.challengeIssuer).waitForReadiness(stack.http, timeout: 30)
            }
        }
    }

    /// Many requests at once, during the outage and after it: when PostgreSQL returns, each data
    /// service's pool resumes with the one connection it kept retrying while leases wait for more.
    /// PostgresNIO 1.33.2 traps right there if its minimum connection count is above one (see
    /// `PostgresSettings.minimumConnections`); this test is what catches a service dying that way.
    @Test("client requests while PostgreSQL is down are bounded 503s, no service dies, and they work again once it is back")
    func requestsWhilePostgresIsDown() async throws {
        try await PrivatePostgres.with("mfa-pg-down") { postgres in
            // A short peer timeout, so that a data service waiting for its database cannot hold the
            // gateway's answer beyond it; cheap password hashes, so that what the burst after the
            // outage measures is the pool, not eight scrypt hashes on a loaded machine racing it.
            let environment = ["RPC_TIMEOUT_MS": "3000", "PASSWORDS_SCRYPT_ROUNDS": "1024"]
            try await TestStack.with(environment: environment, postgresBaseURL: postgres.baseURL) { stack in
                try await stack.start(PublicAPITests.services)
                let before = try await Self.signUps(stack, emails: ["down-0@example.com"])
                #expect(before.map(\.status) == [200])
                try await postgres.stop()
                let started = ContinuousClock.now
                let during = try await Self.signUps(stack, emails: (1...8).map { "down-\($0)@example.com" })
                #expect(during.allSatisfy { $0.status == 503 }, "\(during.map(\.status))")
                #expect(during.allSatisfy { $0.body?["error"]?["status"] == "UNAVAILABLE" })
                #expect(ContinuousClock.now - started < .seconds(8))
                try await postgres.start()
                for service in PublicAPITests.services {
                    #expect(stack.process(service).isRunning, "\(service.rawValue) died while PostgreSQL was down")
                }
                // Every data service back on its database (a sign-up reaches factor-registry and
                // session-token; on a loaded machine one reconnects seconds after the other).
                for service in PublicAPITests.services where service != .gateway {
                    try await stack.process(service).waitForReadiness(stack.http, timeout: 30)
                }
                // Again many at once: the pool comes back with one connection and must grow from it.
                let after = try await Self.signUps(stack, emails: (1...8).map { "back-\($0)@example.com" })
                #expect(after.allSatisfy { $0.status == 200 }, "\(after.map(\.status))")
                for service in PublicAPITests.services {
                    #expect(stack.process(service).isRunning, "\(service.rawValue) died after PostgreSQL came back")
                }
            }
        }
    }

    /// Signs up each address at once (eight: as many as the test's HTTP client sends to one host at a time).
    static func signUps(_ stack: TestStack, emails: [String]) async throws -> [AccountEndpointTests.Answer] {
        let signUp = "\(AccountEndpointTests.v1)/accounts:signUp"
        return try await withThrowingTaskGroup(of: AccountEndpointTests.Answer.self) { group in
            for email in emails {
                group.addTask { try await AccountEndpointTests.post(stack, signUp, ["email": .string(email), "password": "secret-pw"]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}
