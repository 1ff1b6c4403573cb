import Contracts
import PostgresNIO
import TenantStore

/// `account.query` (`accounts:query`): a filter of ids, normalised emails and numbers bound as
/// arrays, an order among fixed columns (ours, never the caller's text), and a window.
struct AccountQuery: Sendable {
    let accounts: AccountService

    static let maximumLimit = 500

    func run(_ params: QueryAccounts.Params) async throws -> QueryAccounts.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard (1...Self.maximumLimit).contains(params.limit), params.offset >= 0, params.offset <= 1_000_000,
            (params.expression?.count ?? 0) <= 100
        else { throw AccountService.rejected(.invalidArgument, detail: "limit must be 1 to 500, offset 0 to 1000000") }
        let conditions = params.expression ?? []
        let ids = conditions.compactMap(\.userId)
        let emails = conditions.compactMap(\.email).map(EmailAddress.normalized)
        let numbers = conditions.compactMap(\.phoneNumber)
        let filtered = !conditions.isEmpty
        let table = schema.qualified("accounts")
        let repository = accounts.accounts
        if !params.returnUserInfo {
            let rows = try await repository.client.query(
                """
                SELECT count(*)::bigint FROM \(sql: table)
                WHERE (NOT \(filtered) OR local_id = ANY(\(ids)) OR email_normalized = ANY(\(emails)) OR phone_number = ANY(\(numbers)))
                """,
                logger: repository.logger
            )
            for try await total in rows.decode(Int64.self) { return .init(recordsCount: Int(total)) }
            return .init(recordsCount: 0)
        }
        let direction: SQLText = params.descending ? "DESC" : "ASC"
        let rows = try await repository.client.query(
            """
            SELECT \(sql: AccountRepository.columns(schema)) FROM \(sql: table)
            WHERE (NOT \(filtered) OR local_id = ANY(\(ids)) OR email_normalized = ANY(\(emails)) OR phone_number = ANY(\(numbers)))
            ORDER BY \(sql: Self.column(params.sortBy)) \(sql: direction) NULLS LAST, local_id \(sql: direction)
            LIMIT \(params.limit) OFFSET \(params.offset)
            """,
            logger: repository.logger
        )
        var found: [Account] = []
        for try await row in rows.decode(AccountRepository.Row.self) { found.append(AccountRepository.credentials(from: row).account) }
        return .init(recordsCount: found.count, accounts: found)
    }

    /// The sort column: a literal of ours for each choice.
    static func column(_ sortBy: QueryAccounts.SortBy) -> SQLText {
        switch sortBy {
        case .userId: "local_id"
        case .name: "display_name"
        case .createdAt: "created_at"
        case .lastLoginAt: "last_login_at"
        case .userEmail: "email_normalized"
        }
    }
}
