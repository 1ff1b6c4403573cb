import AuthVocabulary
import JSONRPC

/// `account.recordSignIn`: records a sign-in that factor-registry did not check itself (a second
/// factor, a custom token) and answers with what the session's ID token says about the user.
///
/// With `requiredEnrollment` nothing is recorded unless the account still has that enrollment, so
/// a factor withdrawn meanwhile (or never added) signs nobody in; with `requiredKind` too, only if
/// that enrollment is of the kind the sign-in checked (a TOTP code never passes for a phone factor
/// that took over an id). Checks: `USER_NOT_FOUND`, then `MFA_ENROLLMENT_NOT_FOUND`.
///
/// A method of its own rather than a change through `account.update`: the hottest flow needs one
/// narrow statement, not the general update and the account's enrollments read back with it.
public enum RecordSignIn: RPCMethod {
    public static let name = "account.recordSignIn"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        /// The second factor the sign-in passed.
        public var requiredEnrollment: String?
        /// The kind of that factor.
        public var requiredKind: FactorKind?
        /// When the sign-in happened, in milliseconds since the epoch: the caller's clock, which the
        /// session's `auth_time` shares. Absent: now, by the database's clock.
        public var signedInAt: Int64?
        /// `asynchronous`: commit without waiting for the flush, for a sign-in whose session is the
        /// durable record. (Checking the account before the factor's own check has passed is
        /// `account.checkFactor`'s, which records nothing.)
        public var mode: Mode?
        /// A first factor factor-registry did not check (`customToken`): recorded in the audit
        /// trail as the sign-in. A second factor's check is recorded where it is made.
        public var firstFactor: String?

        public enum Mode: String, Codable, Sendable, Hashable {
            case asynchronous
        }

        public init(
            projectId: String, tenantId: String? = nil, localId: String, requiredEnrollment: String? = nil, requiredKind: FactorKind? = nil,
            signedInAt: Int64? = nil, mode: Mode? = nil, firstFactor: String? = nil
        ) {
            self.firstFactor = firstFactor
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.requiredEnrollment = requiredEnrollment
            self.requiredKind = requiredKind
            self.signedInAt = signedInAt
            self.mode = mode
        }

        /// How factor-registry writes it.
        public var recording: Recording {
            switch mode {
            case .asynchronous: .at(millis: signedInAt, asynchronous: true)
            case nil: signedInAt.map { .at(millis: $0, asynchronous: false) } ?? .now
            }
        }
    }

    public enum Recording: Sendable, Hashable {
        case now
        case at(millis: Int64?, asynchronous: Bool)
    }

    /// The account after the sign-in, `lastLoginAt` its time. `mfaInfo` is not read and always
    /// absent: a session needs none of it, and reading it was half the statement's cost.
    public typealias Result = Account
}
