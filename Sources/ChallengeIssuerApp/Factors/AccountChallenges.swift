import Contracts
import Logging
import PostgresNIO
import TenantStore

/// What challenge-issuer holds for an account: its TOTP secrets and its open verification sessions.
struct AccountChallenges: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Deletes them for deleted accounts, in one statement; how many rows went.
    func forget(_ params: AccountsToForget) async throws -> Int {
        let selected = try params.selection()
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let (all, ids) = (selected == nil, selected ?? [])
        do {
            let rows = try await client.query(
                """
                WITH factors AS (
                    DELETE FROM \(unescaped: schema.qualified("totp_factors")) WHERE \(all) OR local_id = ANY(\(ids))
                    RETURNING 1
                ), sessions AS (
                    DELETE FROM \(unescaped: schema.qualified("verification_sessions")) WHERE \(all) OR local_id = ANY(\(ids))
                    RETURNING 1
                )
                SELECT (SELECT count(*) FROM factors) + (SELECT count(*) FROM sessions)
                """,
                logger: logger
            )
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        } catch where RetentionSweeper.isMissingTable(error) {
            return 0  // a scope never provisioned here holds nothing
        }
    }
}
