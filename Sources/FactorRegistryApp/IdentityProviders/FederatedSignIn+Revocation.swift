import AsyncHTTPClient
import Contracts
import Crypto
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import TenantStore

/// `idp.revokeToken`: a linked provider user's token revoked at the provider.
extension FederatedSignIn {
    func revoke(_ params: RevokeProviderToken.Params) async throws -> RPCEmpty {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        try await accounts.limits.admit(address: params.clientAddress)
        let stored = try await enabledConfig(params.projectId, params.tenantId, params.providerId)
        // Only a token of the user's own link: this server's client secret is no proxy for anyone else's.
        guard let account = try await accounts.accounts.accounts(in: schema, localIds: [params.localId], emails: []).first,
            account.federatedIdentities?.contains(where: { $0.providerId == stored.config.providerId }) == true
        else { throw IdentityToolkitError(.invalidProviderID, detail: "The user has no \(stored.config.providerId) link.") }
        let (issuer, _) = try issuers(of: stored.config)
        let provider: OpenIDProviderDirectory.Provider
        do {
            provider = try await verifier.directory.provider(issuer: issuer)
        } catch {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider's discovery document could not be fetched.")
        }
        guard let endpoint = provider.revocationEndpoint else {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider has no revocation endpoint.")
        }
        let secret = try await clientSecret(stored, projectId: params.projectId, tenantId: params.tenantId, issuer: issuer)
        let clientId = stored.config.clientId ?? ""
        var token = params.token
        var hint = params.tokenType == "ACCESS_TOKEN" ? "access_token" : "refresh_token"
        if params.tokenType == "CODE" {
            let tokens = try await codeFlow.exchange(
                code: params.token, endpoint: provider.tokenEndpoint ?? "", clientId: clientId, clientSecret: secret,
                redirectUri: params.redirectUri, codeVerifier: nil
            )
            guard let granted = tokens.refreshToken ?? tokens.accessToken else {
                throw IdentityToolkitError(.invalidIdpResponse, detail: "The code granted no token to revoke.")
            }
            (token, hint) = (granted, tokens.refreshToken != nil ? "refresh_token" : "access_token")
        }
        try await codeFlow.revoke(token: token, hint: hint, endpoint: endpoint, clientId: clientId, clientSecret: secret)
        return RPCEmpty()
    }
}
