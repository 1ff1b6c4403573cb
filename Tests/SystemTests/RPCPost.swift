import AsyncHTTPClient
import NIOCore

/// A raw `POST /rpc`, for tests that look at the HTTP layer (status, protocol version, bodies that
/// the typed client would never send).
enum RPCPost {
    static func send(
        _ client: HTTPClient, to baseURL: String, body: ByteBuffer, contentType: String = "application/json",
        timeout: TimeAmount = .seconds(30)
    ) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: "\(baseURL)/rpc")
        request.method = .POST
        request.headers.add(name: "content-type", value: contentType)
        request.body = .bytes(body)
        return try await client.execute(request, timeout: timeout)
    }
}
