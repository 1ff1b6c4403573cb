import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v2/accounts:revokeToken`: a signed-in user's provider token (Sign in with Apple's, which Apple
/// requires apps to revoke when an account is deleted) revoked at the provider by factor-registry,
/// which holds the client's secret. The ID-token prelude first; then `providerId` and `token`.
struct RevokeTokenOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(RevokeTokenRequest.self)
        let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings)
        guard let providerId = body.providerId.nonEmpty else { throw IdentityToolkitError(.missingProviderID) }
        guard let token = body.token.nonEmpty else { throw IdentityToolkitError(.invalidArgument, detail: "token is required") }
        let tokenType = body.tokenType ?? "TOKEN_TYPE_UNSPECIFIED"
        guard ["REFRESH_TOKEN", "ACCESS_TOKEN", "CODE"].contains(tokenType) else {
            throw IdentityToolkitError(.invalidArgument, detail: "tokenType must be REFRESH_TOKEN, ACCESS_TOKEN or CODE")
        }
        _ = try await PeerCall.call(
            registry, RevokeProviderToken.self,
            .init(
                projectId: user.token.projectId, tenantId: user.token.tenantId, localId: user.account.localId, providerId: providerId,
                tokenType: tokenType, token: token, redirectUri: body.redirectUri.nonEmpty, clientAddress: request.clientAddress
            ),
            requestID: request.requestID
        )
        return [:]
    }
}
