import AuthVocabulary
import JSONRPC

/// `session.verifyIdToken`: checks an ID token's RS256 signature against the published keys, its
/// `exp`, `iss` and `aud`, and returns what it says. `INVALID_ID_TOKEN` for anything that is not one
/// of our valid tokens; `TOKEN_EXPIRED` once `exp` has passed.
public enum VerifyIDToken: RPCMethod {
    public static let name = "session.verifyIdToken"

    public struct Params: Codable, Sendable, Hashable {
        public var idToken: String
        public init(idToken: String) { self.idToken = idToken }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        /// Seconds since the epoch (`iat`), compared with the user's `validSince`.
        public var issuedAt: EpochSeconds
        public var authTime: EpochSeconds
        public var signInProvider: SignInProvider
        public var secondFactor: FactorKind?
        public var secondFactorIdentifier: String?
        /// When the session last passed a second factor (`firebase.second_factor_auth_time`).
        public var secondFactorAuthTime: EpochSeconds?
        /// Set for an enrollment-only session (`firebase.mfa_enrollment_deadline`): its end.
        public var enrollmentOnlyUntil: EpochSeconds?
        /// The first factor's own id (`firebase.first_factor_identifier`, a passkey sign-in's
        /// `passkey:<credential id>`): a renewal of this session keeps it.
        public var firstFactorIdentifier: String?

        public init(
            projectId: String, tenantId: String?, localId: String, issuedAt: EpochSeconds, authTime: EpochSeconds,
            signInProvider: SignInProvider, secondFactor: FactorKind?, secondFactorIdentifier: String?,
            secondFactorAuthTime: EpochSeconds? = nil, enrollmentOnlyUntil: EpochSeconds? = nil, firstFactorIdentifier: String? = nil
        ) {
            self.firstFactorIdentifier = firstFactorIdentifier
            self.secondFactorAuthTime = secondFactorAuthTime
            self.enrollmentOnlyUntil = enrollmentOnlyUntil
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.issuedAt = issuedAt
            self.authTime = authTime
            self.signInProvider = signInProvider
            self.secondFactor = secondFactor
            self.secondFactorIdentifier = secondFactorIdentifier
        }
    }
}

extension RPCErrorCode {
    public static let invalidIDToken = RPCErrorCode(1201)
}
