import AuthVocabulary

/// A tenant as the tenant registry (factor-registry) records it.
public struct Tenant: Codable, Sendable, Hashable {
    public var projectId: String
    public var tenantId: String
    public var displayName: String?
    /// `provisioning` until every data service holds its schema, then `active`; `deleting` while
    /// schemas are dropped. Only `active` tenants serve requests.
    public var state: ScopeState
    /// RFC 3339 time of creation.
    public var createdAt: String
    public var settings: AuthSettings
    /// Bumped by every update (compare-and-set for `tenant.update`).
    public var version: Int64

    public init(
        projectId: String, tenantId: String, displayName: String?, state: ScopeState, createdAt: String,
        settings: AuthSettings = .tenantDefaults, version: Int64 = 0
    ) {
        self.settings = settings
        self.version = version
        self.projectId = projectId
        self.tenantId = tenantId
        self.displayName = displayName
        self.state = state
        self.createdAt = createdAt
    }
}
