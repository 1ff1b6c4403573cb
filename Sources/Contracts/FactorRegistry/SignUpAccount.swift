import AuthVocabulary
import JSONRPC

/// `account.signUp`: creates an email/password account (both given) or an anonymous one (neither),
/// in the project's or tenant's schema, checking in the contract's order (§2.1): `MISSING_EMAIL`,
/// `MISSING_PASSWORD`, `INVALID_EMAIL`, `EMAIL_EXISTS`, `WEAK_PASSWORD`.
public enum SignUpAccount: RPCMethod {
    public static let name = "account.signUp"
    /// Never batched: it hashes a password (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var email: String?
        public var password: String?
        public var displayName: String?
        /// The client's address (an IPv6 one as its /64), for the first-factor limits.
        public var clientAddress: String?
        /// A new account is created disabled, held for its `beforeCreate` function: the gateway
        /// releases it once the function allows it (docs/blocking-functions.md), so no crash in between
        /// leaves a way in the function never allowed.
        public var holdNewAccount: Bool?

        public init(
            projectId: String, tenantId: String? = nil, email: String? = nil, password: String? = nil, displayName: String? = nil,
            clientAddress: String? = nil, holdNewAccount: Bool? = nil
        ) {
            self.holdNewAccount = holdNewAccount
            self.clientAddress = clientAddress
            self.projectId = projectId
            self.tenantId = tenantId
            self.email = email
            self.password = password
            self.displayName = displayName
        }
    }

    public typealias Result = Account
}

/// An account as factor-registry returns it (never its password hash).
public struct Account: Codable, Sendable, Hashable {
    public var localId: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var disabled: Bool
    /// Milliseconds since the epoch, as a string (Identity Toolkit's `createdAt`).
    public var createdAt: String
    /// `password` for email/password accounts, `anonymous` for anonymous ones.
    public var signInProvider: SignInProvider
    /// Seconds since the epoch: sessions begun before it are revoked (`TOKEN_EXPIRED`).
    public var validSince: EpochSeconds?
    /// Milliseconds since the epoch of the last sign-in, as a string; absent before the first.
    public var lastLoginAt: String?
    /// Developer claims as a JSON object in text (Identity Toolkit's `customAttributes`).
    public var customAttributes: String?
    /// E.164, set by an admin.
    public var phoneNumber: String?
    /// Enrolled second factors, oldest first; `nil` when there are none.
    public var mfaInfo: [Enrollment]?
    public var photoUrl: String?
    /// The identity providers (`google.com`, `oidc.…`) the account signs in with; `nil` when none
    /// (or when the read did not ask for them: the narrow sign-in records).
    public var federatedIdentities: [FederatedIdentity]?
    /// Whether a password is set; `nil` when the read did not look (the narrow sign-in records).
    public var passwordSet: Bool?

    public init(
        localId: String, email: String?, emailVerified: Bool, displayName: String?, disabled: Bool, createdAt: String,
        signInProvider: SignInProvider, validSince: EpochSeconds? = nil, lastLoginAt: String? = nil, customAttributes: String? = nil,
        phoneNumber: String? = nil, mfaInfo: [Enrollment]? = nil, photoUrl: String? = nil,
        federatedIdentities: [FederatedIdentity]? = nil, passwordSet: Bool? = nil
    ) {
        self.federatedIdentities = federatedIdentities
        self.passwordSet = passwordSet
        self.photoUrl = photoUrl
        self.phoneNumber = phoneNumber
        self.mfaInfo = mfaInfo
        self.localId = localId
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.disabled = disabled
        self.createdAt = createdAt
        self.signInProvider = signInProvider
        self.validSince = validSince
        self.lastLoginAt = lastLoginAt
        self.customAttributes = customAttributes
    }
}

/// One identity provider's user linked to an account (Identity Toolkit's `providerUserInfo` entry
/// for a federated provider): the provider's subject (`rawId`) and the profile it last reported.
public struct FederatedIdentity: Codable, Sendable, Hashable {
    /// `google.com`, `apple.com`, `oidc.<name>`.
    public var providerId: String
    /// The provider's `sub` for the user.
    public var rawId: String
    public var email: String?
    public var displayName: String?
    public var photoUrl: String?

    public init(providerId: String, rawId: String, email: String? = nil, displayName: String? = nil, photoUrl: String? = nil) {
        self.providerId = providerId
        self.rawId = rawId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
    }
}
