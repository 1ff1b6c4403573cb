import Contracts
import JSONRPC
import ServiceTransport

/// A client for one data service that can call only the methods that service serves: each method is
/// marked in `Contracts` with the services that serve it (`FactorRegistryMethod`, …), so calling a
/// method through another service's client does not compile. The transport underneath is the
/// untyped ``RPCClient``.
public struct PeerClient<API: DataServiceAPI>: Sendable {
    public let rpc: RPCClient

    public init(_ rpc: RPCClient) {
        precondition(rpc.peer.rawValue == API.service, "a \(API.service) client over a connection to \(rpc.peer.rawValue)")
        self.rpc = rpc
    }

    /// The same peer with a longer (or shorter) deadline per call.
    public func allowing(_ timeout: Duration) -> PeerClient {
        PeerClient(rpc.allowing(timeout))
    }
}

extension PeerClient where API == FactorRegistryAPI {
    public func call<M: FactorRegistryMethod>(_ method: M.Type, _ params: M.Params, requestID: String? = nil) async throws -> M.Result {
        try await rpc.call(method, params, requestID: requestID)
    }
}

extension PeerClient where API == ChallengeIssuerAPI {
    public func call<M: ChallengeIssuerMethod>(_ method: M.Type, _ params: M.Params, requestID: String? = nil) async throws
        -> M.Result
    {
        try await rpc.call(method, params, requestID: requestID)
    }
}

extension PeerClient where API == SessionTokenAPI {
    public func call<M: SessionTokenMethod>(_ method: M.Type, _ params: M.Params, requestID: String? = nil) async throws -> M.Result {
        try await rpc.call(method, params, requestID: requestID)
    }
}

extension ServiceHost {
    /// A typed client for a peer data service (``client(for:)``, by its contract's type).
    public func peer<API: DataServiceAPI>(_ api: API.Type) -> PeerClient<API> {
        guard let name = ServiceName(rawValue: API.service) else { preconditionFailure("no service is named \(API.service)") }
        return PeerClient(client(for: name))
    }
}
