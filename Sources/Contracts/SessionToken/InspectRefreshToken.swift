import AuthVocabulary
import JSONRPC

/// `session.inspectRefresh`: which project, tenant, user and sign-in a refresh token belongs to.
/// A token already rotated is a reuse: its whole family is revoked and the answer is
/// `INVALID_REFRESH_TOKEN`, as for unknown or revoked tokens.
public enum InspectRefreshToken: RPCMethod {
    public static let name = "session.inspectRefresh"

    public struct Params: Codable, Sendable, Hashable {
        public var refreshToken: String
        /// The client's address (an IPv6 one as its /64): refreshes are limited per address
        /// (`refresh.perAddress`, TOO_MANY_ATTEMPTS_TRY_LATER); each one costs an RSA signature.
        public var clientAddress: String?

        public init(refreshToken: String, clientAddress: String? = nil) {
            self.refreshToken = refreshToken
            self.clientAddress = clientAddress
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        /// Seconds since the epoch when the sign-in (the family) began, for `validSince` checks.
        public var signedInAt: EpochSeconds
        /// The sign-in's `auth_time` (seconds, factor-registry's clock), for telling a deleted
        /// account's session from a new account given the same uid. Absent from older services.
        public var authTime: EpochSeconds?
        /// The second factor the sign-in passed, if any: a session whose factor the account no
        /// longer has is over (decision 4), however the factor went.
        public var secondFactorIdentifier: String?

        public init(
            projectId: String, tenantId: String?, localId: String, signedInAt: EpochSeconds, authTime: EpochSeconds? = nil,
            secondFactorIdentifier: String? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.signedInAt = signedInAt
            self.authTime = authTime
            self.secondFactorIdentifier = secondFactorIdentifier
        }
    }
}

/// `session.refresh`: rotates a refresh token (compare-and-set: a token rotates once) and mints
/// an ID token that repeats the sign-in's claims (provider, second factor) with the user's
/// current profile.
public enum RefreshSession: RPCMethod {
    public static let name = "session.refresh"

    public struct Params: Codable, Sendable, Hashable {
        public var refreshToken: String
        public var user: SessionUser
        /// With `account`: what `session.inspectRefresh` checks happens here first (the address's
        /// limit, reuse detection), then the account's checks in contract order (a deleted account's
        /// uid given again `INVALID_REFRESH_TOKEN`, `USER_DISABLED`, `TOKEN_EXPIRED`), so a refresh
        /// whose user the gateway read from the token itself makes one call here.
        public var clientAddress: String?
        public var account: AccountState?

        public init(refreshToken: String, user: SessionUser, clientAddress: String? = nil, account: AccountState? = nil) {
            self.refreshToken = refreshToken
            self.user = user
            self.clientAddress = clientAddress
            self.account = account
        }
    }

    /// The account as factor-registry answered it, for the session's checks.
    public struct AccountState: Codable, Sendable, Hashable {
        public var localId: String
        /// Milliseconds since the epoch.
        public var createdAt: Int64?
        public var disabled: Bool
        /// Seconds since the epoch: sessions that began before it are over.
        public var validSince: EpochSeconds?
        /// The second factors the account has (their enrollment ids).
        public var secondFactors: [String]

        public init(localId: String, createdAt: Int64?, disabled: Bool, validSince: EpochSeconds?, secondFactors: [String]) {
            self.localId = localId
            self.createdAt = createdAt
            self.disabled = disabled
            self.validSince = validSince
            self.secondFactors = secondFactors
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var idToken: String
        public var refreshToken: String
        public var expiresIn: String
        public var localId: String

        public init(idToken: String, refreshToken: String, expiresIn: String, localId: String) {
            self.idToken = idToken
            self.refreshToken = refreshToken
            self.expiresIn = expiresIn
            self.localId = localId
        }
    }
}

/// session-token's application error codes (range 1200-1299).
extension RPCErrorCode {
    public static let invalidRefreshToken = RPCErrorCode(1200)
}
