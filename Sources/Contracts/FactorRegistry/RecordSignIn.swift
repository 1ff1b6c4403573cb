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
        /// The kind of that factor (`phone`, `totp`).
        public var requiredKind: String?

        public init(
            projectId: String, tenantId: String? = nil, localId: String, requiredEnrollment: String? = nil, requiredKind: String? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.requiredEnrollment = requiredEnrollment
            self.requiredKind = requiredKind
        }
    }

    /// The account after the sign-in, `lastLoginAt` its time. `mfaInfo` is not read and always
    /// absent: a session needs none of it, and reading it was half the statement's cost.
    public typealias Result = Account
}
