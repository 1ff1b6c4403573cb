import TenantStore

/// The database's readiness check (`/readyz`'s `postgres`): a statement about the server that
/// answers as soon as a pooled connection can run one, whichever schema it is given.
struct ReadinessProbe: Statement {
    static var isCached: Bool { false }

    func query(in schema: TenantSchema) -> CachedQuery {
        "SELECT 1"
    }
}
