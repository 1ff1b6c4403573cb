import AuthVocabulary
import JSONRPC

/// A second factor enrolled by an account (metadata only; TOTP secrets live in challenge-issuer).
public struct Enrollment: Codable, Sendable, Hashable {
    /// 28 random letters and digits.
    public var mfaEnrollmentId: String
    public var kind: FactorKind
    public var displayName: String?
    /// E.164, phone factors only.
    public var phoneNumber: String?
    /// RFC 3339.
    public var enrolledAt: String

    public init(mfaEnrollmentId: String, kind: FactorKind, displayName: String?, phoneNumber: String?, enrolledAt: String) {
        self.mfaEnrollmentId = mfaEnrollmentId
        self.kind = kind
        self.displayName = displayName
        self.phoneNumber = phoneNumber
        self.enrolledAt = enrolledAt
    }
}

/// `enrollment.add`: records a second factor the user just proved. Idempotent by
/// `mfaEnrollmentId` (a retry after a lost answer returns the account with it). Checks:
/// `SECOND_FACTOR_EXISTS : …` (phone already enrolled by this user), `SECOND_FACTOR_LIMIT_EXCEEDED`
/// (at most `enrollments.maximum`, default 5), `USER_NOT_FOUND`.
///
/// With `revokeSessions`, the same commit moves the account's `validSince` to the second after
/// the enrollment (decision 3), so `validSince` equals `enrolledAt` rounded down plus one second
/// until something else revokes sessions; a retried add moves nothing.
public enum AddEnrollment: RPCMethod {
    public static let name = "enrollment.add"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var enrollment: Enrollment
        public var revokeSessions: Bool?

        public init(
            projectId: String, tenantId: String? = nil, localId: String, enrollment: Enrollment, revokeSessions: Bool? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.enrollment = enrollment
            self.revokeSessions = revokeSessions
        }
    }

    public typealias Result = Account
}

/// `enrollment.replace`: an admin sets a user's whole list of phone factors (Admin SDK
/// `updateUser({multiFactor})`, `createUser` with factors; contract §2.1, §2.4). An empty list removes
/// every factor. Items repeating an earlier item's number are dropped; then `INVALID_MFA_PHONE_NUMBER :
/// Invalid format.`, `INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId must be defined.`,
/// `DUPLICATE_MFA_ENROLLMENT_ID`, `SECOND_FACTOR_LIMIT_EXCEEDED`. Given `enrolledAt` values are kept.
public enum ReplaceEnrollments: RPCMethod {
    public static let name = "enrollment.replace"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var enrollments: [Enrollment]

        public init(projectId: String, tenantId: String? = nil, localId: String, enrollments: [Enrollment]) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.enrollments = enrollments
        }
    }

    public typealias Result = Account
}

/// `enrollment.remove`: withdraws a second factor (`MFA_ENROLLMENT_NOT_FOUND` when the user has
/// no such factor). Returns the account without it.
public enum RemoveEnrollment: RPCMethod {
    public static let name = "enrollment.remove"

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

    public typealias Result = Account
}
