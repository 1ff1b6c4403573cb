import JSONRPC

/// `account.deleteMany`: removes up to 1000 accounts. Without `force`, an account that is not
/// disabled is kept and reported (`NOT_DISABLED : Disable the account before batch deletion.`);
/// an unknown id counts as deleted, as Identity Toolkit does.
public enum DeleteAccounts: RPCMethod {
    public static let name = "account.deleteMany"
    /// Never batched: it deletes accounts by the thousand (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localIds: [String]
        public var force: Bool

        public init(projectId: String, tenantId: String? = nil, localIds: [String], force: Bool) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localIds = localIds
            self.force = force
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// The ids not deleted, with their position in the request and why.
        public var errors: [Failure]

        public init(errors: [Failure]) { self.errors = errors }
    }

    public struct Failure: Codable, Sendable, Hashable {
        public var index: Int
        public var localId: String
        public var message: String

        public init(index: Int, localId: String, message: String) {
            self.index = index
            self.localId = localId
            self.message = message
        }
    }
}
