import JSONRPC

/// `account.get`: one account by `localId`; unknown → `USER_NOT_FOUND`.
public enum GetAccount: RPCMethod {
    public static let name = "account.get"

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

    public typealias Result = Account
}
