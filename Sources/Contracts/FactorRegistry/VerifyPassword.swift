import AuthVocabulary
import JSONRPC

/// `account.verifyPassword`: the first factor of `accounts:signInWithPassword`. Checks in the
/// contract's order (§2.2): `EMAIL_NOT_FOUND`, `USER_DISABLED`, `INVALID_PASSWORD`; on success
/// records the sign-in time and returns the account.
public enum VerifyPassword: RPCMethod {
    public static let name = "account.verifyPassword"
    /// Never batched: it hashes a password (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var email: String
        public var password: String
        /// The factor kinds that make this sign-in need a second factor under the scope's MFA
        /// settings (contract §3.5). A user with one gets `secondFactorRequired` and the sign-in
        /// is not recorded yet (`lastLoginAt` moves when the second factor is done).
        public var secondFactorKinds: [FactorKind]?
        /// The client's address (an IPv6 one as its /64), for the first-factor limits.
        public var clientAddress: String?

        public init(
            projectId: String, tenantId: String? = nil, email: String, password: String, secondFactorKinds: [FactorKind]? = nil,
            clientAddress: String? = nil
        ) {
            self.secondFactorKinds = secondFactorKinds
            self.clientAddress = clientAddress
            self.projectId = projectId
            self.tenantId = tenantId
            self.email = email
            self.password = password
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var account: Account
        /// Seconds since the epoch of this sign-in (the ID token's `auth_time`).
        public var lastLoginAt: EpochSeconds
        public var secondFactorRequired: Bool?

        public init(account: Account, lastLoginAt: EpochSeconds, secondFactorRequired: Bool? = nil) {
            self.account = account
            self.lastLoginAt = lastLoginAt
            self.secondFactorRequired = secondFactorRequired
        }
    }
}
