import TenantStore

/// The statements of ``FinishedSignIns``, each a type: its values, its text in a schema, its row.
extension FinishedSignIns {
    /// What passed `attempt`, while it is remembered; no row for a sign-in not finished yet.
    struct ReadProof: Statement {
        typealias Row = SingleValue<String>
        let attempt: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT proof FROM \(sql: schema.qualified(FinishedSignIns.table)) WHERE attempt = \(attempt) AND expires_at > now()"
        }
    }

    /// `attempt` finished with `proof`, remembered for `seconds`; a unique violation when another
    /// success of the same credential committed first.
    struct RecordProof: Statement {
        let attempt: String
        let proof: String
        let seconds: Double

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(FinishedSignIns.table)) (attempt, proof, expires_at)
            VALUES (\(attempt), \(proof), now() + make_interval(secs => \(seconds)))
            """
        }
    }
}
