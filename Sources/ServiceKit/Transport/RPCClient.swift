import AsyncHTTPClient
import Foundation
import JSONRPC
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// A typed JSON-RPC client for one peer service, over HTTP/2 with mutual TLS.
///
/// All calls share one `HTTPClient` and so one HTTP/2 connection per peer, multiplexed.
public final class RPCClient: Sendable {
    public let peer: ServiceName
    let endpoint: String
    let httpClient: HTTPClient
    let timeout: Duration
    private let nextID = Atomic<Int64>(1)

    /// The largest response body accepted from a peer.
    static let maximumResponseBytes = 4 << 20

    public init(peer: ServiceName, baseURL: String, httpClient: HTTPClient, timeout: Duration) {
        self.peer = peer
        self.endpoint = baseURL.hasSuffix("/") ? baseURL + "rpc" : baseURL + "/rpc"
        self.httpClient = httpClient
        self.timeout = timeout
    }

    /// Calls `method` and returns its result.
    /// - Throws: the peer's ``RPCError``, or ``RPCTransportError`` when it could not be reached or
    ///   answered something that is not JSON-RPC.
    public func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params, requestID: String? = nil) async throws -> M.Result {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let body = try JSONCoding.encode(RPCRequestEnvelope(method: M.name, params: params, id: .int(id)))
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        if let requestID { request.headers.add(name: "x-request-id", value: requestID) }
        request.body = .bytes(ByteBuffer(bytes: body))

        let bytes: ByteBuffer
        do {
            let response = try await httpClient.execute(request, timeout: .nanoseconds(Int64(timeout.nanoseconds)))
            bytes = try await response.body.collect(upTo: Self.maximumResponseBytes)
        } catch {
            throw RPCTransportError(peer: peer, method: M.name, reason: "\(error)")
        }
        let decoded: TypedResponse<M.Result>
        do {
            decoded = try JSONDecoder().decode(TypedResponse<M.Result>.self, from: Data(buffer: bytes))
        } catch {
            throw RPCTransportError(peer: peer, method: M.name, reason: "response is not a JSON-RPC response for this method")
        }
        if let error = decoded.error { throw error }
        guard let result = decoded.result else {
            throw RPCTransportError(peer: peer, method: M.name, reason: "response has neither result nor error")
        }
        return result
    }
}

/// The peer could not be reached, or did not answer in JSON-RPC.
public struct RPCTransportError: Error, CustomStringConvertible, Sendable {
    public let peer: ServiceName
    public let method: String
    public let reason: String
    public var description: String { "\(peer.rawValue) \(method): \(reason)" }
}

/// A response decoded straight into the method's result type (one parse, no intermediate tree).
private struct TypedResponse<Result: Decodable>: Decodable {
    var result: Result?
    var error: RPCError?
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
