import AsyncHTTPClient
import Foundation
import JSONRPC
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL

/// One HTTP client for a command's calls: JSON in, JSON out, and the API's error envelope turned
/// into an error that says what the server said.
struct GatewayClient {
    let options: GatewayOptions
    private let http: HTTPClient

    init(_ options: GatewayOptions) throws {
        self.options = options
        var configuration = HTTPClient.Configuration()
        if let caFile = options.caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(caFile)
            configuration.tlsConfiguration = tls
        }
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async {
        try? await http.shutdown()
    }

    /// A call with the admin credential (refused before sending when there is none).
    func admin(_ method: HTTPMethod, _ path: String, query: [String: String] = [:], body: JSONValue? = nil) async throws -> JSONValue {
        let token = try options.adminToken()
        try GatewayOptions.requireConfidential(options.gateway)
        return try await send(method, options.gateway + path, query: query, body: body, headers: ["Authorization": "Bearer \(token)"])
    }

    /// A call as an app makes it: with an API key, no credential of an operator.
    func app(_ path: String, apiKey: String, body: JSONValue) async throws -> JSONValue {
        try await send(.POST, options.gateway + path, query: ["key": apiKey], body: body, headers: [:])
    }

    /// A call to a service's ops listener (`/admin/…`), which takes the same admin credential.
    func ops(_ method: HTTPMethod, _ url: String) async throws -> JSONValue {
        let token = try options.adminToken()
        try GatewayOptions.requireConfidential(url)
        return try await send(method, url, query: [:], body: nil, headers: ["Authorization": "Bearer \(token)"])
    }

    private func send(
        _ method: HTTPMethod, _ url: String, query: [String: String], body: JSONValue?, headers: [String: String]
    ) async throws -> JSONValue {
        var components = URLComponents(string: url)
        if !query.isEmpty {
            components?.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        guard let address = components?.string else { throw CommandFailure.message("not a URL: \(url)") }
        var request = HTTPClientRequest(url: address)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONCoding.encode(body)))
        }
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: .seconds(60))
        } catch {
            throw CommandFailure.message("cannot reach \(options.gateway): \(error)")
        }
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let answer = bytes.readableBytes == 0 ? JSONValue.object([:]) : try? JSONCoding.parse(Data(buffer: bytes))
        guard (200..<300).contains(Int(response.status.code)) else {
            let message = answer?["error"]?["message"]?.stringValue ?? String(buffer: bytes)
            throw CommandFailure.message("\(response.status.code): \(message)")
        }
        guard let answer else { throw CommandFailure.message("the answer is not JSON: \(String(buffer: bytes).prefix(200))") }
        return answer
    }
}

/// What a command says when it fails (exit status 1).
enum CommandFailure: Error, CustomStringConvertible {
    case missingToken
    case message(String)

    var description: String {
        switch self {
        case .missingToken: "no admin credential: set MFA_ADMIN_TOKEN or MFA_ADMIN_TOKEN_FILE, or pass --token-file"
        case .message(let text): text
        }
    }
}

extension GatewayOptions {
    /// Runs `body` with a client that is shut down afterwards, whatever happens.
    func withClient<T>(_ body: (GatewayClient) async throws -> T) async throws -> T {
        let client = try GatewayClient(self)
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }
}
