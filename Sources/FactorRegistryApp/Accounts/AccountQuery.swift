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
        let filter = AccountRepository.Filter(localIds: ids, normalizedEmails: emails, phoneNumbers: numbers, all: conditions.isEmpty)
        guard params.returnUserInfo else {
            return .init(recordsCount: try await accounts.accounts.count(in: schema, filter))
        }
        let found = try await accounts.accounts.accounts(
            in: schema, filter, orderBy: Self.column(params.sortBy), descending: params.descending, limit: params.limit,
            offset: params.offset)
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
