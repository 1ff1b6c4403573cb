import JSONRPC

/// `account.create`: the privileged (Admin SDK `createUser`) form of sign-up: the caller may choose
/// the `localId` and set `emailVerified` and `disabled`; email and password are each optional.
/// Checks: `DUPLICATE_LOCAL_ID`, `INVALID_EMAIL`, `EMAIL_EXISTS`, `WEAK_PASSWORD`.
public enum CreateAccount: RPCMethod {
    public static let name = "account.create"
    /// Never batched: it may hash a password (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String?
        public var email: String?
        public var password: String?
        public var displayName: String?
        public var emailVerified: Bool?
        public var disabled: Bool?
        /// E.164; `INVALID_PHONE_NUMBER : Invalid format.`, `PHONE_NUMBER_EXISTS`.
        public var phoneNumber: String?
        /// At most 2048 bytes (`INVALID_PHOTO_URL`).
        public var photoUrl: String?

        public init(
            projectId: String, tenantId: String? = nil, localId: String? = nil, email: String? = nil, password: String? = nil,
            displayName: String? = nil, emailVerified: Bool? = nil, disabled: Bool? = nil, phoneNumber: String? = nil,
            photoUrl: String? = nil
        ) {
            self.photoUrl = photoUrl
            self.phoneNumber = phoneNumber
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.email = email
            self.password = password
            self.displayName = displayName
            self.emailVerified = emailVerified
            self.disabled = disabled
        }
    }

    public typealias Result = Account
}

/// `account.find`: the accounts matching any of the given ids, emails (case-insensitive) or phone
/// numbers, each once; none is an empty list.
public enum FindAccounts: RPCMethod {
    public static let name = "account.find"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localIds: [String]
        public var emails: [String]
        public var phoneNumbers: [String]?

        public init(
            projectId: String, tenantId: String? = nil, localIds: [String] = [], emails: [String] = [], phoneNumbers: [String]? = nil
        ) {
            self.phoneNumbers = phoneNumbers
            self.projectId = projectId
            self.tenantId = tenantId
            self.localIds = localIds
            self.emails = emails
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var accounts: [Account]
        public init(accounts: [Account]) { self.accounts = accounts }
    }
}
