import AuthVocabulary
import JSONRPC

/// `account.checkFactor`: the account a second-factor sign-in continues, while it still has the
/// factor the sign-in names and that factor is of the kind the sign-in checks (a TOTP code never
/// passes for a phone factor that took over an id). Records nothing: the gateway asks it beside
/// the factor's own check (one hop), and records the sign-in with `account.recordSignIn` once both
/// passed. Errors: `USER_NOT_FOUND`, then `MFA_ENROLLMENT_NOT_FOUND`.
public enum CheckFactor: RPCMethod {
    public static let name = "account.checkFactor"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        /// The factor the sign-in names.
        public var enrollmentId: String
        /// The kind the sign-in checks it as.
        public var kind: FactorKind

        public init(projectId: String, tenantId: String? = nil, localId: String, enrollmentId: String, kind: FactorKind) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.enrollmentId = enrollmentId
            self.kind = kind
        }
    }

    /// The account, read narrowly: `mfaInfo` is not read and always absent.
    public typealias Result = Account
}
