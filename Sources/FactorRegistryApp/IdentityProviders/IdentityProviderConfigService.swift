import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import TenantStore

/// `idpConfig.*`: provider configurations checked as Identity Platform checks them, their secrets
/// sealed under the master key with the scope and provider as associated data (a sealed secret
/// copied to another provider's row does not open).
struct IdentityProviderConfigService: Sendable {
    let repository: IdentityProviderConfigRepository
    let accounts: AccountService
    let sealer: SecretSealer

    static let maximumPageSize = 100
    /// `oidc.` and a name of letters, digits, `_`, `.` and `-`.
    static func isOIDCProviderID(_ id: String) -> Bool {
        let name = id.utf8.dropFirst(5)
        return id.hasPrefix("oidc.") && (1...64).contains(name.count)
            && name.allSatisfy {
                ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 95 || $0 == 46 || $0 == 45
            }
    }

    func put(_ params: PutIdentityProviderConfig.Params) async throws -> IdentityProviderConfig {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let config = try Self.checked(params.config)
        let previous = params.create ? nil : try await repository.get(in: schema, providerId: config.providerId)
        if !params.create && previous?.config.kind != config.kind { throw Self.notFound }
        let secretID = Self.keyID("client-secret", params, config.providerId)
        let keyID = Self.keyID("apple-private-key", params, config.providerId)
        var stored = IdentityProviderConfigRepository.Stored(
            config: config,
            sealedClientSecret: try sealed(params.clientSecret, keyID: secretID, else: previous?.sealedClientSecret),
            sealedPrivateKey: try sealed(params.applePrivateKey, keyID: keyID, else: previous?.sealedPrivateKey)
        )
        // The code flow trades the code for tokens with the client secret: without one it cannot work.
        if config.kind == .oidc, config.responseCode == true, stored.sealedClientSecret == nil {
            throw AccountService.rejected(.invalidConfig, detail: "A client secret is required for the code flow.")
        }
        do {
            guard try await repository.put(stored, create: params.create, in: schema) else { throw Self.notFound }
        } catch is IdentityProviderConfigRepository.Exists {
            throw AccountService.rejected(.configurationExists)
        }
        stored.config.clientSecretSet = stored.sealedClientSecret != nil
        stored.config.applePrivateKeySet = stored.sealedPrivateKey != nil
        return stored.config
    }

    func get(_ params: GetIdentityProviderConfig.Params) async throws -> IdentityProviderConfig {
        try await stored(projectId: params.projectId, tenantId: params.tenantId, providerId: params.providerId).config
    }

    /// The stored configuration, `CONFIGURATION_NOT_FOUND` when there is none.
    func stored(projectId: String, tenantId: String?, providerId: String) async throws -> IdentityProviderConfigRepository.Stored {
        let schema = try await accounts.activeSchema(projectId: projectId, tenantId: tenantId)
        guard providerId.utf8.count <= 128, let stored = try await repository.get(in: schema, providerId: providerId) else {
            throw Self.notFound
        }
        return stored
    }

    func list(_ params: ListIdentityProviderConfigs.Params) async throws -> ListIdentityProviderConfigs.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let size = min(max(params.pageSize ?? Self.maximumPageSize, 1), Self.maximumPageSize)
        let page = try await repository.list(in: schema, kind: params.kind, after: params.pageToken, limit: size + 1)
        let configs = page.prefix(size).map(\.config)
        return .init(configs: Array(configs), nextPageToken: page.count > size ? configs.last?.providerId : nil)
    }

    func delete(_ params: DeleteIdentityProviderConfig.Params) async throws -> RPCEmpty {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard try await repository.delete(in: schema, providerId: params.providerId) else { throw Self.notFound }
        return RPCEmpty()
    }

    /// The client secret of a configuration, opened for the one call that sends it to the provider.
    func clientSecret(_ stored: IdentityProviderConfigRepository.Stored, projectId: String, tenantId: String?) throws -> String? {
        try stored.sealedClientSecret.map {
            let opened = try sealer.open($0, keyID: Self.keyID("client-secret", projectId, tenantId, stored.config.providerId))
            return String(decoding: opened, as: UTF8.self)
        }
    }

    /// Apple's signing key (PEM), opened for the one client-secret JWT it signs.
    func applePrivateKey(_ stored: IdentityProviderConfigRepository.Stored, projectId: String, tenantId: String?) throws -> String? {
        try stored.sealedPrivateKey.map {
            let opened = try sealer.open($0, keyID: Self.keyID("apple-private-key", projectId, tenantId, stored.config.providerId))
            return String(decoding: opened, as: UTF8.self)
        }
    }

    static let notFound = AccountService.rejected(.configurationNotFound)

    /// A secret given is sealed (`""` removes it); one not given keeps what was stored.
    private func sealed(_ secret: String?, keyID: String, else kept: Data?) throws -> Data? {
        guard let secret else { return kept }
        if secret.isEmpty { return nil }
        guard secret.utf8.count <= 8192 else { throw AccountService.rejected(.invalidConfig, detail: "The secret is too long.") }
        return try sealer.seal(Data(secret.utf8), keyID: keyID)
    }

    private static func keyID(_ purpose: String, _ params: PutIdentityProviderConfig.Params, _ providerId: String) -> String {
        keyID(purpose, params.projectId, params.tenantId, providerId)
    }

    static func keyID(_ purpose: String, _ projectId: String, _ tenantId: String?, _ providerId: String) -> String {
        "idp-\(purpose):\(projectId)/\(tenantId ?? "")/\(providerId)"
    }

    /// Identity Platform's checks: a known default provider, or `oidc.` and a name; an OIDC
    /// issuer that is an https URL (its discovery document is fetched from it); at most one
    /// response type; a client id for an enabled provider.
    static func checked(_ config: IdentityProviderConfig) throws -> IdentityProviderConfig {
        var config = config
        switch config.kind {
        case .defaultSupported:
            guard DefaultSupportedProviders.ids.contains(config.providerId) else {
                throw AccountService.rejected(.invalidProviderID)
            }
            config.issuer = nil
            config.responseCode = nil
            config.responseIdToken = nil
            // Google's and Apple's trust is Firebase's published rule (EmailTrust), not a setting.
            config.trustEmailVerified = nil
            if config.providerId != DefaultSupportedProviders.apple {
                config.appleBundleIds = nil
                config.appleTeamId = nil
                config.appleKeyId = nil
            }
        case .oidc:
            guard Self.isOIDCProviderID(config.providerId) else { throw AccountService.rejected(.invalidProviderID) }
            guard let issuer = config.issuer, issuer.utf8.count <= 2048, let url = URL(string: issuer), url.scheme == "https",
                url.host?.isEmpty == false, url.query == nil, url.fragment == nil
            else {
                throw AccountService.rejected(.invalidConfig, detail: "The issuer must be an https URL.")
            }
            if config.responseCode == true && config.responseIdToken == true {
                throw AccountService.rejected(.invalidConfig, detail: "Only one response type may be chosen.")
            }
            if config.responseCode != true { config.responseIdToken = true }
        }
        if config.enabled, config.clientId?.isEmpty != false {
            throw AccountService.rejected(.invalidOAuthClientID)
        }
        for text in [config.clientId, config.displayName, config.appleTeamId, config.appleKeyId].compactMap({ $0 })
        where text.utf8.count > 1024 {
            throw AccountService.rejected(.invalidConfig, detail: "A value is too long.")
        }
        if let ids = config.appleBundleIds, ids.count > 50 || ids.contains(where: { $0.isEmpty || $0.utf8.count > 256 }) {
            throw AccountService.rejected(.invalidConfig, detail: "Invalid bundle ids.")
        }
        return config
    }
}
