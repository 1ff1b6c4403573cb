import AuthVocabulary
import JSONRPC

/// `account.signInWithIdp`: the first factor of `accounts:signInWithIdp`. factor-registry reads the
/// provider's credential (an ID token in `postBody`, the authorization response of a web flow that
/// `idp.authorizationUri` started, or a `pendingToken` it handed out before), verifies it against
/// the provider's published keys and the configuration, and finds, creates or links the account.
/// Errors: `INVALID_IDP_RESPONSE`, `MISSING_OR_INVALID_NONCE`, `INVALID_PENDING_TOKEN`,
/// `OPERATION_NOT_ALLOWED` (provider not configured or disabled), `USER_DISABLED`,
/// `FEDERATED_USER_ID_ALREADY_LINKED` and `EMAIL_EXISTS` (unless `returnIdpCredential`: then a
/// result with `errorMessage`), `PROVIDER_ALREADY_LINKED`.
public enum SignInWithIdp: RPCMethod {
    public static let name = "account.signInWithIdp"
    /// Never batched: it waits on the identity provider (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var requestUri: String
        public var postBody: String?
        public var sessionId: String?
        public var pendingToken: String?
        /// The signed-in user (from the request's `idToken`) the provider's identity is linked to.
        public var linkTo: String?
        /// As ``VerifyPassword``: a user with one of these factors is not signed in yet.
        public var secondFactorKinds: [FactorKind]?
        /// Conflicts (`FEDERATED_USER_ID_ALREADY_LINKED`, `EMAIL_EXISTS`) answer as a result with
        /// the provider's credential rather than as errors.
        public var returnIdpCredential: Bool?
        public var clientAddress: String?
        /// A new account is created disabled, held for its `beforeCreate` function: the gateway
        /// releases it once the function allows it (docs/blocking-functions.md), so no crash in between
        /// leaves a way in the function never allowed.
        public var holdNewAccount: Bool?

        public init(
            projectId: String, tenantId: String? = nil, requestUri: String, postBody: String? = nil, sessionId: String? = nil,
            pendingToken: String? = nil, linkTo: String? = nil, secondFactorKinds: [FactorKind]? = nil, returnIdpCredential: Bool? = nil,
            clientAddress: String? = nil, holdNewAccount: Bool? = nil
        ) {
            self.holdNewAccount = holdNewAccount
            self.projectId = projectId
            self.tenantId = tenantId
            self.requestUri = requestUri
            self.postBody = postBody
            self.sessionId = sessionId
            self.pendingToken = pendingToken
            self.linkTo = linkTo
            self.secondFactorKinds = secondFactorKinds
            self.returnIdpCredential = returnIdpCredential
            self.clientAddress = clientAddress
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// The provider's user, as verified.
        public var identity: ProviderProfile
        /// The signed-in (or linked) account; absent when `needConfirmation` or `errorMessage`.
        public var account: Account?
        public var isNewUser: Bool?
        /// Seconds since the epoch of this sign-in; 0 when a second factor is still required.
        public var lastLoginAt: EpochSeconds?
        public var secondFactorRequired: Bool?
        /// The provider's verified email took the account from unverified credentials: every
        /// earlier session of it must end (the gateway has session-token forget them).
        public var tookOver: Bool?
        /// An account already has the provider's email and signs in some other way: the user must
        /// sign in with one of `verifiedProvider` and link the provider then.
        public var needConfirmation: Bool?
        public var verifiedProvider: [String]?
        /// `FEDERATED_USER_ID_ALREADY_LINKED` or `EMAIL_EXISTS`, when `returnIdpCredential` asked for a result.
        public var errorMessage: String?
        /// The verified identity, sealed: signs the same provider user in again (or links it) for an hour.
        public var pendingToken: String
        /// The web flow's `context`, as `idp.authorizationUri` was given it.
        public var context: String?

        public init(
            identity: ProviderProfile, account: Account? = nil, isNewUser: Bool? = nil, lastLoginAt: EpochSeconds? = nil,
            secondFactorRequired: Bool? = nil, tookOver: Bool? = nil, needConfirmation: Bool? = nil, verifiedProvider: [String]? = nil,
            errorMessage: String? = nil, pendingToken: String, context: String? = nil
        ) {
            self.identity = identity
            self.account = account
            self.isNewUser = isNewUser
            self.lastLoginAt = lastLoginAt
            self.secondFactorRequired = secondFactorRequired
            self.tookOver = tookOver
            self.needConfirmation = needConfirmation
            self.verifiedProvider = verifiedProvider
            self.errorMessage = errorMessage
            self.pendingToken = pendingToken
            self.context = context
        }
    }
}

/// A provider's user as its verified credential describes them.
public struct ProviderProfile: Codable, Sendable, Hashable {
    public var providerId: String
    /// The provider's `sub`.
    public var rawId: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var firstName: String?
    public var lastName: String?
    public var photoUrl: String?
    /// The ID token's claims as JSON text (`rawUserInfo`).
    public var rawUserInfo: String?
    /// The provider's ID token and, after a code exchange, its access token.
    public var oauthIdToken: String?
    public var oauthAccessToken: String?
    public var oauthExpireIn: Int?

    public init(
        providerId: String, rawId: String, email: String? = nil, emailVerified: Bool = false, displayName: String? = nil,
        firstName: String? = nil, lastName: String? = nil, photoUrl: String? = nil, rawUserInfo: String? = nil,
        oauthIdToken: String? = nil, oauthAccessToken: String? = nil, oauthExpireIn: Int? = nil
    ) {
        self.providerId = providerId
        self.rawId = rawId
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.firstName = firstName
        self.lastName = lastName
        self.photoUrl = photoUrl
        self.rawUserInfo = rawUserInfo
        self.oauthIdToken = oauthIdToken
        self.oauthAccessToken = oauthAccessToken
        self.oauthExpireIn = oauthExpireIn
    }
}

/// `idp.authorizationUri`: the provider's authorization URL for a web sign-in (`createAuthUri`
/// with a `providerId`): the configured client, `continueUri` as the redirect, the scopes and
/// custom parameters, a nonce, PKCE, and a `state` that seals all of it with `sessionId` for ten
/// minutes. Errors: `OPERATION_NOT_ALLOWED`, `INVALID_PROVIDER_ID`, `INVALID_CONTINUE_URI`.
public enum CreateAuthorizationUri: RPCMethod {
    public static let name = "idp.authorizationUri"
    /// Never batched: it may wait on the identity provider's discovery document (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var providerId: String
        public var continueUri: String
        public var sessionId: String
        public var scopes: [String]?
        public var customParameters: [String: String]?
        public var context: String?

        public init(
            projectId: String, tenantId: String? = nil, providerId: String, continueUri: String, sessionId: String,
            scopes: [String]? = nil, customParameters: [String: String]? = nil, context: String? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.providerId = providerId
            self.continueUri = continueUri
            self.sessionId = sessionId
            self.scopes = scopes
            self.customParameters = customParameters
            self.context = context
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var authUri: String

        public init(authUri: String) { self.authUri = authUri }
    }
}
