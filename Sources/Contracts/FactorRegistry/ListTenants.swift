import JSONRPC

/// `tenant.list`: a project's tenants ordered by id, a page at a time.
public enum ListTenants: RPCMethod {
    public static let name = "tenant.list"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        /// 1...1000, default 20.
        public var pageSize: Int?
        /// The last tenant id of the previous page.
        public var pageToken: String?

        public init(projectId: String, pageSize: Int? = nil, pageToken: String? = nil) {
            self.projectId = projectId
            self.pageSize = pageSize
            self.pageToken = pageToken
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var tenants: [Tenant]
        public var nextPageToken: String?

        public init(tenants: [Tenant], nextPageToken: String?) {
            self.tenants = tenants
            self.nextPageToken = nextPageToken
        }
    }
}
