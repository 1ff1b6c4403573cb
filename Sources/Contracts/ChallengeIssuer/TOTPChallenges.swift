import JSONRPC

/// `totp.startEnrollment`: a new TOTP secret for a user, held (sealed) in a verification session
/// until the user proves their authenticator app has it. Returns what the client shows (contract
/// §2.8 `totpSessionInfo`); the secret is never returned again.
public enum StartTOTPEnrollment: RPCMethod {
    public static let name = "totp.startEnrollment"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String

        public init(projectId: String, tenantId: String? = nil, localId: String) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var sessionInfo: String
        /// 32 base32 characters, no padding.
        public var sharedSecretKey: String
        public var verificationCodeLength: Int
        public var hashingAlgorithm: String
        public var periodSec: Int
        /// RFC 3339: the session ends then (`SESSION_EXPIRED`).
        public var finalizeEnrollmentTime: String

        public init(
            sessionInfo: String, sharedSecretKey: String, verificationCodeLength: Int, hashingAlgorithm: String, periodSec: Int,
            finalizeEnrollmentTime: String
        ) {
            self.sessionInfo = sessionInfo
            self.sharedSecretKey = sharedSecretKey
            self.verificationCodeLength = verificationCodeLength
            self.hashingAlgorithm = hashingAlgorithm
            self.periodSec = periodSec
            self.finalizeEnrollmentTime = finalizeEnrollmentTime
        }
    }
}

/// `totp.finalizeEnrollment`: checks a code against the session's secret and, in the same
/// transaction, uses the session up and keeps the secret as the factor `mfaEnrollmentId` (its time
/// step recorded, so the same code cannot be used again). The used session is kept until it
/// expires: a retry with the same `mfaEnrollmentId` and a right code is accepted again (an
/// enrollment whose answer was lost can be finished); anything else finds it used. Errors:
/// `INVALID_SESSION_INFO` (unknown, used, or another user's session), `SESSION_EXPIRED`,
/// `INVALID_CODE`, `TOO_MANY_ATTEMPTS_TRY_LATER`.
public enum FinalizeTOTPEnrollment: RPCMethod {
    public static let name = "totp.finalizeEnrollment"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var sessionInfo: String
        public var verificationCode: String
        public var adjacentIntervals: Int
        public var mfaEnrollmentId: String

        public init(
            projectId: String, tenantId: String? = nil, localId: String, sessionInfo: String, verificationCode: String,
            adjacentIntervals: Int, mfaEnrollmentId: String
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.sessionInfo = sessionInfo
            self.verificationCode = verificationCode
            self.adjacentIntervals = adjacentIntervals
            self.mfaEnrollmentId = mfaEnrollmentId
        }
    }

    public typealias Result = RPCEmpty
}

/// `totp.verify`: a sign-in code for an enrolled TOTP factor. A time step is accepted at most once
/// per factor (compare-and-set under a row lock, so parallel requests with one code: exactly one
/// wins); wrong codes are throttled per factor. Errors: `MFA_ENROLLMENT_NOT_FOUND`, `INVALID_CODE`,
/// `TOO_MANY_ATTEMPTS_TRY_LATER`.
public enum VerifyTOTP: RPCMethod {
    public static let name = "totp.verify"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var mfaEnrollmentId: String
        public var verificationCode: String
        public var adjacentIntervals: Int
        /// Names the sign-in this check belongs to (a digest of its pending credential). A retry of
        /// the same attempt with the code whose step it recorded is accepted again, so a sign-in
        /// whose answer was lost after this check can be finished; any other attempt is refused.
        public var attempt: String?

        public init(
            projectId: String, tenantId: String? = nil, localId: String, mfaEnrollmentId: String, verificationCode: String,
            adjacentIntervals: Int, attempt: String? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.mfaEnrollmentId = mfaEnrollmentId
            self.verificationCode = verificationCode
            self.adjacentIntervals = adjacentIntervals
            self.attempt = attempt
        }
    }

    public typealias Result = RPCEmpty
}

/// `totp.delete`: forgets a TOTP factor's secret (after a withdraw). Idempotent.
public enum DeleteTOTPFactor: RPCMethod {
    public static let name = "totp.delete"

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

    public typealias Result = RPCEmpty
}

/// `totp.listStored`: the TOTP factors whose secret has been stored for at least `olderThanSeconds`
/// (by this service's database clock), in enrollment-id order after `after`. factor-registry's
/// orphan sweep compares them with the enrollments it holds; younger secrets are left out so that an
/// enrollment between its two steps (secret stored, metadata not yet) is never taken for an orphan.
public enum ListStoredTOTPFactors: RPCMethod {
    public static let name = "totp.listStored"
    /// The most factors one call returns.
    public static let maximumLimit = 1000

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var olderThanSeconds: Int
        /// The last `mfaEnrollmentId` of the previous page; `nil` for the first.
        public var after: String?
        public var limit: Int

        public init(projectId: String, tenantId: String? = nil, olderThanSeconds: Int, after: String? = nil, limit: Int) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.olderThanSeconds = olderThanSeconds
            self.after = after
            self.limit = limit
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var factors: [StoredTOTPFactor]

        public init(factors: [StoredTOTPFactor]) {
            self.factors = factors
        }
    }
}

/// Whose TOTP factor a stored secret is; never the secret.
public struct StoredTOTPFactor: Codable, Sendable, Hashable {
    public var localId: String
    public var mfaEnrollmentId: String

    public init(localId: String, mfaEnrollmentId: String) {
        self.localId = localId
        self.mfaEnrollmentId = mfaEnrollmentId
    }
}

extension RPCErrorCode {
    /// A code, session or factor check failed; `identityToolkitError` says which.
    public static let challengeRejected = RPCErrorCode(1120)
}
