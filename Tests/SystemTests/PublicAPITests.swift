import AsyncHTTPClient
import Foundation
import JSONRPC
import NIOCore
import NIOHTTP1
import ServiceKit
import ServiceTransport
import Testing

@Suite("Gateway public API: paths, credentials, envelope, strict bodies", .serialized)
struct PublicAPITests {
    struct Answer {
        let status: Int
        let body: JSONValue?
        let headers: [String: String]
        var message: String? { body?["error"]?["message"]?.stringValue }
    }

    static func send(
        _ stack: TestStack, _ method: HTTPMethod, _ path: String, body: String? = nil,
        headers: [(String, String)] = [("content-type", "application/json")]
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: stack.publicURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await stack.http.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return Answer(status: Int(response.status.code), body: try? JSONCoding.parse(Array(buffer: bytes)), headers: fields)
    }

    static let services: [ServiceName] = [.factorRegistry, .challengeIssuer, .sessionToken, .gateway]

    @Test("requests are checked in order: path, API key, JSON, schema; each failure has the contract's envelope")
    func checkOrder() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.services)
            let root = try await Self.send(stack, .GET, "/")
            #expect(root.status == 200)
            #expect(root.body?["service"] == "gateway")

            let unknown = try await Self.send(stack, .POST, "/v1/accounts:nothing?key=k", body: "{}")
            #expect(unknown.status == 404)
            #expect(unknown.body?["error"]?["status"] == "NOT_FOUND")

            let noKey = try await Self.send(stack, .POST, "/identitytoolkit.googleapis.com/v1/accounts:signUp", body: "{}")
            #expect(noKey.status == 403)
            #expect(noKey.message == "The request is missing a valid API key.")
            #expect(noKey.body?["error"]?["status"] == "PERMISSION_DENIED")

            let badBearer = try await Self.send(
                stack, .POST, "/v1/accounts:lookup", body: "{}",
                headers: [("content-type", "application/json"), ("authorization", "Bearer not-a-token")]
            )
            #expect(badBearer.status == 401)
            #expect(badBearer.body?["error"]?["status"] == "UNAUTHENTICATED")

            let malformed = try await Self.send(stack, .POST, "/v1/accounts:signUp?key=k", body: #"{"email":"#)
            #expect(malformed.status == 400)
            #expect(malformed.message?.hasPrefix("Invalid JSON payload received.") == true)
            guard case .array(let items)? = malformed.body?["error"]?["errors"] else {
                Issue.record("no errors array")
                return
            }
            #expect(items.first?["reason"] == "parseError")

            let unknownField = try await Self.send(
                stack, .POST, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", body: #"{"email":"a@b.co","foo":1}"#
            )
            #expect(unknownField.status == 400)
            #expect(unknownField.message == #"Invalid JSON payload received. Unknown name "foo": Cannot find field."#)
            #expect(unknownField.body?["error"]?["status"] == "INVALID_ARGUMENT")

            let wrongType = try await Self.send(
                stack, .POST, "/v1/accounts:signUp", body: #"{"email":["x"]}"#,
                headers: [("content-type", "application/json"), ("x-goog-api-key", "k")]
            )
            #expect(wrongType.message == "Invalid JSON payload received. /email must be string")

            let form = try await Self.send(
                stack, .POST, "/securetoken.googleapis.com/v1/token?key=k", body: "grant_type=refresh_token&bogus=1",
                headers: [("content-type", "application/x-www-form-urlencoded")]
            )
            #expect(form.message == #"Invalid JSON payload received. Unknown name "bogus": Cannot find field."#)

            let huge = try await Self.send(
                stack, .POST, "/v1/accounts:signUp?key=k", body: "{\"email\":\"" + String(repeating: "a", count: 2 << 20) + "\"}"
            )
            #expect(huge.status == 413)

            // Every routed operation is served: a made-up session is the client's mistake.
            let phone = try await Self.send(
                stack, .POST, "/v1/accounts:signInWithPhoneNumber?key=k", body: #"{"sessionInfo":"s","code":"123456"}"#)
            #expect(phone.status == 400)
            #expect(phone.message == "INVALID_SESSION_INFO")

            // Nothing above disturbed the gateway.
            #expect(try await Self.send(stack, .GET, "/").status == 200)
        }
    }

    @Test("CORS: a preflight reflects the origin and the requested headers")
    func cors() async throws {
        try await TestStack.with { stack in
            try await stack.start(Self.services)
            let preflight = try await Self.send(
                stack, .OPTIONS, "/v1/accounts:signUp",
                headers: [
                    ("origin", "https://app.example"), ("access-control-request-method", "POST"),
                    ("access-control-request-headers", "content-type,x-client-version"),
                    ("access-control-request-private-network", "true"),
                ]
            )
            #expect(preflight.status == 204)
            #expect(preflight.headers["access-control-allow-origin"] == "https://app.example")
            #expect(preflight.headers["access-control-allow-headers"] == "content-type,x-client-version")
            #expect(preflight.headers["access-control-allow-private-network"] == "true")
        }
    }

    @Test("in production mode only configured API keys are accepted, and Bearer owner is not an admin")
    func productionKeys() async throws {
        try await TestStack.with(environment: ["MODE": "production", "API_KEYS": "good-key=demo-project"]) { stack in
            try await stack.start(Self.services)
            let bad = try await Self.send(stack, .POST, "/v1/accounts:signInWithPhoneNumber?key=wrong", body: "{}")
            #expect(bad.status == 400)
            #expect(bad.message == "API key not valid. Please pass a valid API key.")
            let good = try await Self.send(stack, .POST, "/v1/accounts:signInWithPhoneNumber?key=good-key", body: "{}")
            // Past the key: phone sign-in is off in production until a project turns it on.
            #expect(good.status == 400)
            #expect(good.message == "OPERATION_NOT_ALLOWED")
            let owner = try await Self.send(
                stack, .POST, "/v1/accounts:lookup", body: "{}",
                headers: [("content-type", "application/json"), ("authorization", "Bearer owner")]
            )
            #expect(owner.status == 401)
        }
    }
}
