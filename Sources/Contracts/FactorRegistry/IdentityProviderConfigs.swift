import JSONRPC

/// A project's or tenant's configuration of one identity provider: a default-supported one
/// (`google.com`, `apple.com`; Identity Platform's `defaultSupportedIdpConfigs`) or an OpenID
/// Connect one (`oidc.<name>`; `oauthIdpConfigs`). Its secrets (the OAuth client secret, Apple's
/// signing key) are write-only: factor-registry keeps them sealed and says only whether they are set.
public struct IdentityProviderConfig: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, Hashable {
        /// `defaultSupportedIdpConfigs/<idpId>`.
        case defaultSupported
        /// `oauthIdpConfigs/oidc.<name>`.
        case oidc
    }

    public var providerId: String
    public var kind: Kind
    public var enabled: Bool
    public var clientId: String?
    /// OIDC only: the issuer whose discovery document (`/.well-known/openid-configuration`) names
    /// the endpoints and keys.
    public var issuer: String?
    public var displayName: String?
    /// OIDC only: the authorization response the web flow asks for (`code` or `id_token`).
    public var responseCode: Bool?
    public var responseIdToken: Bool?
    /// Apple only: the app bundle ids whose ID tokens (`aud`) are accepted besides `clientId`.
    public var appleBundleIds: [String]?
    public var appleTeamId: String?
    public var appleKeyId: String?
    /// OIDC only: this provider's `email_verified` proves an address (docs/identity-providers.md,
    /// "Whose verified email counts"); off by default, so its addresses are stored unverified.
    public var trustEmailVerified: Bool?
    /// Whether a client secret (Apple: a private key) is stored.
    public var clientSecretSet: Bool
    public var applePrivateKeySet: Bool

    public init(
        providerId: String, kind: Kind, enabled: Bool, clientId: String? = nil, issuer: String? = nil, displayName: String? = nil,
        responseCode: Bool? = nil, responseIdToken: Bool? = nil, appleBundleIds: [String]? = nil, appleTeamId: String? = nil,
        appleKeyId: String? = nil, trustEmailVerified: Bool? = nil, clientSecretSet: Bool = false, applePrivateKeySet: Bool = false
    ) {
        self.trustEmailVerified = trustEmailVerified
        self.providerId = providerId
        self.kind = kind
        self.enabled = enabled
        self.clientId = clientId
        self.issuer = issuer
        self.displayName = displayName
        self.responseCode = responseCode
        self.responseIdToken = responseIdToken
        self.appleBundleIds = appleBundleIds
        self.appleTeamId = appleTeamId
        self.appleKeyId = appleKeyId
        self.clientSecretSet = clientSecretSet
        self.applePrivateKeySet = applePrivateKeySet
    }
}

/// `idpConfig.put`: creates (`create`: `CONFIGURATION_EXISTS` when it exists) or replaces (else:
/// `CONFIGURATION_NOT_FOUND` when it does not) one provider configuration. A secret left `nil` is
/// kept as stored; `""` removes it. Checks: `INVALID_PROVIDER_ID`, `INVALID_CONFIG`, `INVALID_OAUTH_CLIENT_ID`.
public enum PutIdentityProviderConfig: RPCMethod {
    public static let name = "idpConfig.put"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var config: IdentityProviderConfig
        public var create: Bool
        public var clientSecret: String?
        public var applePrivateKey: String?

        public init(
            projectId: String, tenantId: String? = nil, config: IdentityProviderConfig, create: Bool, clientSecret: String? = nil,
            applePrivateKey: String? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.config = config
            self.create = create
            self.clientSecret = clientSecret
            self.applePrivateKey = applePrivateKey
        }
    }

    public typealias Result = IdentityProviderConfig
}

/// `idpConfig.get`: one provider configuration; `CONFIGURATION_NOT_FOUND` when there is none.
public enum GetIdentityProviderConfig: RPCMethod {
    public static let name = "idpConfig.get"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var providerId: String

        public init(projectId: String, tenantId: String? = nil, providerId: String) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.providerId = providerId
        }
    }

    public typealias Result = IdentityProviderConfig
}

/// `idpConfig.list`: the configurations of one kind, by provider id, a page at a time.
public enum ListIdentityProviderConfigs: RPCMethod {
    public static let name = "idpConfig.list"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var kind: IdentityProviderConfig.Kind
        public var pageSize: Int?
        /// The last provider id of the previous page.
        public var pageToken: String?

        public init(
            projectId: String, tenantId: String? = nil, kind: IdentityProviderConfig.Kind, pageSize: Int? = nil, pageToken: String? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.kind = kind
            self.pageSize = pageSize
            self.pageToken = pageToken
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var configs: [IdentityProviderConfig]
        public var nextPageToken: String?

        public init(configs: [IdentityProviderConfig], nextPageToken: String? = nil) {
            self.configs = configs
            self.nextPageToken = nextPageToken
        }
    }
}

/// `idpConfig.delete`: removes one provider configuration (`CONFIGURATION_NOT_FOUND` when there
/// is none). Accounts keep their linked identities; they cannot sign in with them until it is back.
public enum DeleteIdentityProviderConfig: RPCMethod {
    public static let name = "idpConfig.delete"

    public typealias Params = GetIdentityProviderConfig.Params
    public typealias Result = RPCEmpty
}
