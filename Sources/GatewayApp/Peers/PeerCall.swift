import IdentityToolkit
import JSONRPC
import ServiceKit

/// Calls a peer and turns its answer into the public contract: an application error that carries an
/// Identity Toolkit string becomes that business error (HTTP 400); an unreachable peer, or a peer whose database is unreachable, becomes 503.
enum PeerCall {
    static func call<M: RPCMethod>(_ client: RPCClient, _ method: M.Type, _ params: M.Params, requestID: String) async throws
        -> M.Result
    {
        do {
            return try await client.call(method, params, requestID: requestID)
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
