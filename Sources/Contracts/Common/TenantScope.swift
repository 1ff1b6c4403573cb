/// Names the data a request is about: a project's own (project-level) data, or one of its tenants.
/// Every data service keeps each scope in its own PostgreSQL schema.
public struct TenantScope: Codable, Sendable, Hashable {
    public var projectId: String
    /// `nil` for the project-level data (Identity Platform's "no tenant").
    public var tenantId: String?

    public init(projectId: String, tenantId: String? = nil) {
        self.projectId = projectId
        self.tenantId = tenantId
    }
}
