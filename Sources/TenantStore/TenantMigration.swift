/// One change to a schema, applied once and recorded by name.
///
/// Statements are plain SQL without schema names: the migrator runs them with the target schema
/// as the transaction-local `search_path`. Never edit a migration that has shipped; add a new one.
///
/// ```swift
/// TenantMigration("CreateAccountsTable", [
///     "CREATE TABLE accounts (local_id text PRIMARY KEY, email text)",
/// ])
/// ```
public struct TenantMigration: Sendable, Hashable {
    public let name: String
    public let statements: [String]

    public init(_ name: String, _ statements: [String]) {
        self.name = name
        self.statements = statements
    }
}
