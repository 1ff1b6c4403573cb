/// Where a project or a tenant is in its life (factor-registry's tenant registry): `provisioning`
/// until every data service holds its schema, then `active`; a tenant is `deleting` while its schemas
/// are dropped. Only an `active` scope serves requests. The raw values are the wire's (`Tenant.state`)
/// and the database's spelling (`control.projects.state`, `control.tenants.state`), unchanged.
public enum ScopeState: String, Codable, Sendable, CaseIterable, Hashable {
    case provisioning
    case active
    /// Tenants only: a project is never deleted.
    case deleting
}
