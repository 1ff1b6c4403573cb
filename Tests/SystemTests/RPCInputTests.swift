import AsyncHTTPClient
import Foundation
import JSONRPC
import NIOCore
import Testing

@Suite("Bad input to /rpc", .serialized)
struct RPCInputTests {
    static func post(
        _ client: HTTPClient, _ url: String, _ body: ByteBuffer, contentType: String = "application/json"
    ) async throws -> (status: Int, body: JSONValue?) {
        let response = try await RPCPost.send(client, to: url, body: body, contentType: contentType)
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), try? JSONCoding.parse(Array(buffer: bytes)))
    }

    @Test("malformed, oversized, mistyped and deeply nested bodies get JSON-RPC errors with 4xx or 200, and the service keeps serving")
    func hostileBodies() async throws {
        try await TestStack.with { stack in
            try await stack.start([.challengeIssuer])
            let url = stack.process(.challengeIssuer).rpcURL
            let client = stack.httpClient(tls: try stack.pki.client(as: "factor-registry").clientConfiguration)

            let malformed = try await Self.post(client, url, ByteBuffer(string: #"{"jsonrpc":"2.0","method":"#))
            #expect(malformed.status == 200)
            #expect(malformed.body?["error"]?["code"] == .int(-32700))

            let empty = try await Self.post(client, url, ByteBuffer())
            #expect(empty.body?["error"]?["code"] == .int(-32700))

            let huge = ByteBuffer(repeating: UInt8(ascii: " "), count: 2 << 20)
            let tooLarge = try await Self.post(client, url, huge)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.body?["error"]?["code"] == .int(-32004))

            let wrongType = try await Self.post(client, url, ByteBuffer(string: "{}"), contentType: "text/plain")
            #expect(wrongType.status == 415)
            #expect(wrongType.body?["error"]?["code"] == .int(-32600))

            let deep = String(repeating: "[", count: 200_000)
            let nested = try await Self.post(client, url, ByteBuffer(string: deep))
            #expect(nested.body?["error"]?["code"] == .int(-32700))

            let unknownParam = try await Self.post(
                client, url,
                ByteBuffer(string: #"{"jsonrpc":"2.0","method":"tenantSchema.provision","params":{"projectId":"p1","evil":1},"id":2}"#)
            )
            #expect(unknownParam.body?["error"]?["code"] == .int(-32602))

            let injection = try await Self.post(
                client, url,
                ByteBuffer(
                    string:
                        #"{"jsonrpc":"2.0","method":"tenantSchema.provision","params":{"projectId":"p1","tenantId":"x\"; DROP SCHEMA control; --"},"id":3}"#
                )
            )
            #expect(injection.body?["error"]?["code"] == .int(900))

            let batch = try await Self.post(
                client, url,
                ByteBuffer(string: #"[{"jsonrpc":"2.0","method":"rpc.discover","id":1},{"jsonrpc":"2.0","method":"nope","id":2},7]"#)
            )
            guard case .array(let entries)? = batch.body else {
                Issue.record("batch answer is not an array")
                return
            }
            #expect(entries.count == 3)

            #expect(stack.process(.challengeIssuer).isRunning)
            let healthy = try await Self.post(client, url, ByteBuffer(string: #"{"jsonrpc":"2.0","method":"rpc.discover","id":9}"#))
            #expect(healthy.status == 200)
            #expect(healthy.body?["result"] != nil)
        }
    }
}
