import AuthVocabulary
import JSONRPC

/// `session.issue`: mints an ID token (RS256, the claim set of contract §3.6) and starts a
/// refresh-token family for one sign-in.
public enum IssueSession: RPCMethod {
    public static let name = "session.issue"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        /// The first factor: `password`, `anonymous`, `custom`, `phone`, an IdP id…
        public var signInProvider: SignInProvider
        /// `phone` or `totp` after a second-factor sign-in or enrollment.
        public var secondFactor: FactorKind?
        public var secondFactorIdentifier: String?
        /// Seconds since the epoch of the user's last sign-in.
        public var authTime: EpochSeconds
        public var user: SessionUser
        /// Claims of this sign-in only (a custom token's `claims`): kept with the session, so every
        /// refreshed token carries them; they override the user's developer claims.
        public var sessionClaims: [String: JSONValue]?
        /// Completes an MFA sign-in: this pending credential is used up in the same transaction
        /// that starts the session (`INVALID_MFA_PENDING_CREDENTIAL` if it no longer works). The
        /// session's refresh token is derived from the credential, so a retry after a lost answer
        /// gets the same session back while its token was never used (within the credential's lifetime).
        public var consumePendingCredential: String?
        /// Ends every other session of the user first (a new second factor, decision 3).
        public var revokeOtherSessions: Bool?
        /// Completes an enrollment (`secondFactorIdentifier` is the new factor): the session's
        /// refresh token is derived from the enrollment, so an exact retry of its finalize gets
        /// this session back and ends nothing (decision 22), while that token was never used and
        /// the session stands; otherwise `INVALID_SESSION_INFO`.
        public var finishesEnrollment: Bool?
        /// Seconds since the epoch when this session last passed a second factor (its sign-in's, or
        /// the enrollment's that started it): step-up (issue 43) compares it with the scope's
        /// `stepUpMaxAge`. `nil`: the session never passed one.
        public var secondFactorAuthTime: EpochSeconds?
        /// MANDATORY MFA (docs/mfa-policy.md): the session may do nothing but enroll a factor (and
        /// look itself up, verify its email), and ends at this time (seconds since the epoch).
        public var enrollmentOnlyUntil: EpochSeconds?
        /// The first factor's own id where it has one (a passkey sign-in's `passkey:<credential id>`):
        /// `session.revokeFactor` with it ends the sessions that factor started, as a withdrawn
        /// second factor's.
        public var firstFactorIdentifier: String?

        public init(
            projectId: String, tenantId: String? = nil, localId: String, signInProvider: SignInProvider,
            secondFactor: FactorKind? = nil, secondFactorIdentifier: String? = nil, authTime: EpochSeconds, user: SessionUser,
            sessionClaims: [String: JSONValue]? = nil, consumePendingCredential: String? = nil, revokeOtherSessions: Bool? = nil,
            finishesEnrollment: Bool? = nil, secondFactorAuthTime: EpochSeconds? = nil, enrollmentOnlyUntil: EpochSeconds? = nil,
            firstFactorIdentifier: String? = nil
        ) {
            self.firstFactorIdentifier = firstFactorIdentifier
            self.secondFactorAuthTime = secondFactorAuthTime
            self.enrollmentOnlyUntil = enrollmentOnlyUntil
            self.finishesEnrollment = finishesEnrollment
            self.consumePendingCredential = consumePendingCredential
            self.revokeOtherSessions = revokeOtherSessions
            self.sessionClaims = sessionClaims
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.signInProvider = signInProvider
            self.secondFactor = secondFactor
            self.secondFactorIdentifier = secondFactorIdentifier
            self.authTime = authTime
            self.user = user
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var idToken: String
        public var refreshToken: String
        /// Seconds, as a string (the Identity Toolkit spelling).
        public var expiresIn: String

        public init(idToken: String, refreshToken: String, expiresIn: String) {
            self.idToken = idToken
            self.refreshToken = refreshToken
            self.expiresIn = expiresIn
        }
    }
}

/// What an ID token says about its user.
public struct SessionUser: Codable, Sendable, Hashable {
    public var email: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var displayName: String?
    public var photoUrl: String?
    /// Provider id → identifiers, for `firebase.identities` (`email` is added from `email`).
    public var identities: [String: [String]]?
    /// Developer claims (`customAttributes`), merged at the top level; reserved names are ignored.
    public var customClaims: [String: JSONValue]?

    public init(
        email: String? = nil, emailVerified: Bool? = nil, phoneNumber: String? = nil, displayName: String? = nil,
        photoUrl: String? = nil, identities: [String: [String]]? = nil, customClaims: [String: JSONValue]? = nil
    ) {
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.identities = identities
        self.customClaims = customClaims
    }
}
