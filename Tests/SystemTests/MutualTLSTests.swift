import AsyncHTTPClient
import Contracts
import Foundation
import JSONRPC
import NIOCore
import ServiceKit
import Testing

@Suite("Service-to-service transport: HTTP/2 with mutual TLS", .serialized)
struct MutualTLSTests {
    static let discover = #"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#

    static func post(
        _ client: HTTPClient, _ url: String, _ body: String, timeout: TimeAmount = .seconds(10)
    ) async throws -> HTTPClientResponse {
        try await RPCPost.send(client, to: url, body: ByteBuffer(string: body), timeout: timeout)
    }

    @Test("a peer with a deployment certificate calls over HTTP/2; without one, or with another CA's, the TLS handshake refuses it")
    func mutualTLS() async throws {
        try await TestStack.with { stack in
            try await stack.start([.challengeIssuer])
            let url = stack.process(.challengeIssuer).rpcURL

            let trusted = stack.httpClient(tls: try stack.pki.client(as: "gateway").clientConfiguration)
            let response = try await Self.post(trusted, url, Self.discover)
            #expect(response.status == .ok)
            #expect(response.version == .http2)
            let body = try JSONCoding.parse(Array(buffer: try await response.body.collect(upTo: 1 << 20)))
            #expect(body["result"]?["openrpc"] != nil)
            #expect(body["result"]?["info"]?["title"] == "challenge-issuer")

            let anonymous = stack.httpClient(tls: try stack.pki.anonymousClientConfiguration())
            await #expect(throws: (any Error).self) { _ = try await Self.post(anonymous, url, Self.discover, timeout: .seconds(3)) }

            let outsider = stack.httpClient(tls: try stack.pki.client(as: "gateway", fromOutsider: true).clientConfiguration)
            await #expect(throws: (any Error).self) { _ = try await Self.post(outsider, url, Self.discover, timeout: .seconds(3)) }

            // The refused callers did not hurt the service.
            #expect(try await Self.post(trusted, url, Self.discover).status == .ok)
        }
    }

    @Test("over HTTP/1.1 (ALPN fallback) the caller's certificate identity is read and enforced just the same")
    func http1Identity() async throws {
        try await TestStack.with { stack in
            try await stack.start([.challengeIssuer])
            let url = stack.process(.challengeIssuer).rpcURL
            let provision = #"{"jsonrpc":"2.0","method":"tenantSchema.provision","params":{"projectId":"http1-project"},"id":1}"#
            for (identity, allowed) in [("factor-registry", true), ("gateway", false)] {
                var configuration = HTTPClient.Configuration()
                configuration.tlsConfiguration = try stack.pki.client(as: identity).clientConfiguration
                configuration.httpVersion = .http1Only
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                defer { _ = client.shutdown() }
                let response = try await Self.post(client, url, provision)
                #expect(response.version == .http1_1)
                let body = try JSONCoding.parse(Array(buffer: try await response.body.collect(upTo: 1 << 20)))
                if allowed {
                    #expect(body["result"]?["schema"] == "p_http1-project", "\(identity)")
                } else {
                    #expect(body["error"]?["code"] == .int(-32003), "\(identity)")
                }
            }
        }
    }

    @Test("a caller whose certificate identity may not call a method gets a JSON-RPC error; an allowed one succeeds")
    func callerPolicy() async throws {
        try await TestStack.with { stack in
            try await stack.start([.challengeIssuer])
            let scope = TenantScope(projectId: "policy-project")
            let asGateway = try stack.client(to: .challengeIssuer, as: "gateway")
            await #expect(throws: RPCError.callerNotAllowed(method: ProvisionTenantSchema.name)) {
                _ = try await asGateway.call(ProvisionTenantSchema.self, scope)
            }
            let asRegistry = try stack.client(to: .challengeIssuer, as: "factor-registry")
            let result = try await asRegistry.call(ProvisionTenantSchema.self, scope)
            #expect(result.schema == "p_policy-project")
            #expect(try await stack.schemas(in: .challengeIssuer).contains("p_policy-project"))
        }
    }
}
