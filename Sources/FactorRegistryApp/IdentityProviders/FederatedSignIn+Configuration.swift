import AsyncHTTPClient
import Contracts
import Crypto
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import TenantStore

/// The provider's configuration a sign-in uses: enabled in the scope, its issuers, audiences and
/// client secret.
extension FederatedSignIn {
    /// The provider's configuration, which must exist and be enabled (`OPERATION_NOT_ALLOWED`).
    func enabledConfig(_ projectId: String, _ tenantId: String?, _ providerId: String) async throws
        -> IdentityProviderConfigRepository.Stored
    {
        let stored: IdentityProviderConfigRepository.Stored
        do {
            stored = try await configs.stored(projectId: projectId, tenantId: tenantId, providerId: providerId)
        } catch let error as RPCError where error.business?.code == .configurationNotFound {
            throw IdentityToolkitError(.operationNotAllowed, detail: "The identity provider configuration is not found.")
        }
        guard stored.config.enabled else {
            throw IdentityToolkitError(.operationNotAllowed, detail: "The identity provider configuration is disabled.")
        }
        return stored
    }

    /// Where the provider's keys are, and the `iss` values its tokens may carry.
    func issuers(of config: IdentityProviderConfig) throws -> (String, Set<String>) {
        switch config.kind {
        case .oidc:
            guard let issuer = config.issuer else { throw IdentityToolkitError(.invalidConfig) }
            return (issuer, [issuer])
        case .defaultSupported:
            guard let issuer = defaults.issuers[config.providerId] else { throw IdentityToolkitError(.invalidProviderID) }
            return (issuer, defaults.acceptedIssuers(config.providerId))
        }
    }

    /// The client ids a token may be for: the configured one, and for Apple the apps' bundle ids.
    func audiences(of config: IdentityProviderConfig) -> Set<String> {
        Set([config.clientId].compactMap { $0 } + (config.appleBundleIds ?? []))
    }

    func clientSecret(_ stored: IdentityProviderConfigRepository.Stored, projectId: String, tenantId: String?, issuer: String)
        async throws -> String
    {
        if stored.config.providerId == DefaultSupportedProviders.apple,
            let key = try configs.applePrivateKey(stored, projectId: projectId, tenantId: tenantId),
            let team = stored.config.appleTeamId, let keyId = stored.config.appleKeyId
        {
            do {
                return try await AuthorizationCodeFlow.appleClientSecret(
                    privateKeyPEM: key, teamId: team, keyId: keyId, clientId: stored.config.clientId ?? "", audience: issuer
                )
            } catch {
                throw IdentityToolkitError(.invalidConfig, detail: "The Apple private key does not sign.")
            }
        }
        guard let secret = try configs.clientSecret(stored, projectId: projectId, tenantId: tenantId) else {
            throw IdentityToolkitError(.invalidConfig, detail: "The code flow needs a client secret.")
        }
        return secret
    }
}
