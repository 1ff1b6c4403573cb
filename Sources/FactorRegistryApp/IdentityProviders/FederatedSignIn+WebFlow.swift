import AsyncHTTPClient
import AuthVocabulary
import Contracts
import Crypto
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import TenantStore

/// The web flow's start (`idp.authorizationUri`): the provider's authorization URI with a sealed state.
extension FederatedSignIn {
    func authorizationUri(_ params: CreateAuthorizationUri.Params) async throws -> CreateAuthorizationUri.Result {
        _ = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let stored = try await enabledConfig(params.projectId, params.tenantId, params.providerId)
        let (issuer, _) = try issuers(of: stored.config)
        let provider: OpenIDProviderDirectory.Provider
        do {
            provider = try await verifier.directory.provider(issuer: issuer)
        } catch {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider's discovery document could not be fetched.")
        }
        let nonce = Base64URL.random(byteCount: 24)
        let verifierText = Base64URL.random(byteCount: 32)
        let state = try states.seal(
            AuthorizationState(
                projectId: params.projectId, tenantId: params.tenantId, providerId: stored.config.providerId,
                sessionHash: Self.hash(params.sessionId), nonce: nonce, codeVerifier: verifierText, redirectUri: params.continueUri,
                context: params.context, expiresAt: Self.now + Self.stateLifetime
            )
        )
        let uri = try AuthorizationCodeFlow.authorizationURL(
            endpoint: provider.authorizationEndpoint ?? "", config: stored.config, state: state, nonce: nonce,
            codeVerifier: verifierText, redirectUri: params.continueUri, scopes: params.scopes ?? [],
            customParameters: params.customParameters ?? [:], responseModes: provider.responseModes, supportedScopes: provider.scopes
        )
        return .init(authUri: uri)
    }
}
