import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit
import ServiceTransport

/// Calls a peer and turns its answer into the public contract: an application error that carries an
/// Identity Toolkit string becomes that business error (HTTP 400); an unreachable peer, or a peer whose database is unreachable, becomes 503.
/// One overload per data service: a method is called only through a client of a service that serves it.
enum PeerCall {
    static func call<M: FactorRegistryMethod>(
        _ client: PeerClient<FactorRegistryAPI>, _ method: M.Type, _ params: M.Params, requestID: String
    ) async throws -> M.Result {
        try await answer { try await client.call(method, params, requestID: requestID) }
    }

    static func call<M: ChallengeIssuerMethod>(
        _ client: PeerClient<ChallengeIssuerAPI>, _ method: M.Type, _ params: M.Params, requestID: String
    ) async throws -> M.Result {
        try await answer { try await client.call(method, params, requestID: requestID) }
    }

    static func call<M: SessionTokenMethod>(
        _ client: PeerClient<SessionTokenAPI>, _ method: M.Type, _ params: M.Params, requestID: String
    ) async throws -> M.Result {
        try await answer { try await client.call(method, params, requestID: requestID) }
    }

    /// A method every data service serves, through any of their clients.
    static func call<M: DataServiceMethod>(_ client: RPCClient, _ method: M.Type, _ params: M.Params, requestID: String) async throws
        -> M.Result
    {
        try await answer { try await client.call(method, params, requestID: requestID) }
    }

    private static func answer<Result>(_ call: () async throws -> Result) async throws -> Result {
        do {
            return try await call()
        } catch let error as RPCError {
            if let business = error.business { throw business }
            // The peer answered, but its own dependency (its database) did not.
            if error.code == .dependencyUnavailable { throw IdentityToolkitError.unavailable }
            throw error
        } catch is RPCTransportError {
            throw IdentityToolkitError.unavailable
        }
    }
}
