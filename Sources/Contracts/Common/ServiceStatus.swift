import JSONRPC

/// `service.status`: what an operator wants to know about a running service.
public enum GetServiceStatus: RPCMethod {
    public static let name = "service.status"
    public typealias Params = RPCEmpty
    public typealias Result = ServiceStatus
}

/// The status document served by `service.status` and by each ops listener's `GET /admin/status`.
public struct ServiceStatus: Codable, Sendable, Hashable {
    public var service: String
    public var version: String
    public var uptimeSeconds: Int
    /// Tenant schemas this service holds (the project-level schemas included).
    public var tenantSchemas: Int?
    public var database: DependencyState?
    public var dependencies: [String: DependencyState]

    public init(
        service: String, version: String, uptimeSeconds: Int, tenantSchemas: Int?,
        database: DependencyState?, dependencies: [String: DependencyState]
    ) {
        self.service = service
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.tenantSchemas = tenantSchemas
        self.database = database
        self.dependencies = dependencies
    }
}

/// Whether a dependency answered, and if not, why (never a secret).
public struct DependencyState: Codable, Sendable, Hashable {
    public var ready: Bool
    public var detail: String?

    public init(ready: Bool, detail: String? = nil) {
        self.ready = ready
        self.detail = detail
    }
}
