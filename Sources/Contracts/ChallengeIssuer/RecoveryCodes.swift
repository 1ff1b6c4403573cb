import JSONRPC

/// `recoveryCodes.generate`: a new set of recovery codes for one of a user's recovery-code
/// enrollments (docs/mfa-policy.md), replacing the set it had in one commit, so every older code
/// stops working. The codes are answered once and stored only as keyed hashes.
public enum GenerateRecoveryCodes: RPCMethod {
    public static let name = "recoveryCodes.generate"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var mfaEnrollmentId: String

        public init(projectId: String, tenantId: String? = nil, localId: String, mfaEnrollmentId: String) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.mfaEnrollmentId = mfaEnrollmentId
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// `XXXX-XXXX-XXXX-XXXX`, 80 random bits each.
        public var codes: [String]
        public init(codes: [String]) { self.codes = codes }
    }
}

/// `recoveryCodes.redeem`: a sign-in's second factor by one unused code of the set (normalised:
/// case, spaces, dashes), used up in the same commit that records the sign-in as finished for
/// `attempt`, so only an exact retry of that sign-in passes with it again. Wrong codes spend the
/// set's guessing budget like TOTP codes. `INVALID_CODE`, `TOO_MANY_ATTEMPTS_TRY_LATER`,
/// `MFA_ENROLLMENT_NOT_FOUND`, `INVALID_MFA_PENDING_CREDENTIAL` (another proof finished the attempt).
public enum RedeemRecoveryCode: RPCMethod {
    public static let name = "recoveryCodes.redeem"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var mfaEnrollmentId: String
        public var code: String
        public var attempt: String?

        public init(
            projectId: String, tenantId: String? = nil, localId: String, mfaEnrollmentId: String, code: String, attempt: String?
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.mfaEnrollmentId = mfaEnrollmentId
            self.code = code
            self.attempt = attempt
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// Codes of the set still unused.
        public var remaining: Int
        public init(remaining: Int) { self.remaining = remaining }
    }
}

/// `recoveryCodes.count`: how many codes of a user's set are unused (0 for a set not there).
public enum CountRecoveryCodes: RPCMethod {
    public static let name = "recoveryCodes.count"

    public typealias Params = GenerateRecoveryCodes.Params

    public struct Result: Codable, Sendable, Hashable {
        public var remaining: Int
        /// RFC 3339: when the set was generated; absent when there is none.
        public var generatedAt: String?
        public init(remaining: Int, generatedAt: String?) {
            self.remaining = remaining
            self.generatedAt = generatedAt
        }
    }
}
