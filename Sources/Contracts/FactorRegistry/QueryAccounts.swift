import JSONRPC

/// `account.query`: the accounts of a project or tenant matching any of `expression` (all of them
/// without one), sorted, a window at a time (`accounts:query`); or only how many match.
public enum QueryAccounts: RPCMethod {
    public static let name = "account.query"

    public enum SortBy: String, Codable, Sendable, Hashable {
        case userId, name, createdAt, lastLoginAt, userEmail
    }

    /// One condition: an email (case-insensitive), a phone number or a user id.
    public struct Condition: Codable, Sendable, Hashable {
        public var email: String?
        public var phoneNumber: String?
        public var userId: String?

        public init(email: String? = nil, phoneNumber: String? = nil, userId: String? = nil) {
            self.email = email
            self.phoneNumber = phoneNumber
            self.userId = userId
        }
    }

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var expression: [Condition]?
        public var sortBy: SortBy
        public var descending: Bool
        /// 1...500.
        public var limit: Int
        public var offset: Int
        /// `false`: count the matches, return none.
        public var returnUserInfo: Bool

        public init(
            projectId: String, tenantId: String? = nil, expression: [Condition]? = nil, sortBy: SortBy = .userId, descending: Bool = false,
            limit: Int = 500, offset: Int = 0, returnUserInfo: Bool = true
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.expression = expression
            self.sortBy = sortBy
            self.descending = descending
            self.limit = limit
            self.offset = offset
            self.returnUserInfo = returnUserInfo
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// The accounts returned, or (without `returnUserInfo`) how many match.
        public var recordsCount: Int
        public var accounts: [Account]?

        public init(recordsCount: Int, accounts: [Account]? = nil) {
            self.recordsCount = recordsCount
            self.accounts = accounts
        }
    }
}
