import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `accounts:query` (admin): as the discovery document says, only the first `expression` counts,
/// and in it the first of `email`, `phoneNumber`, `userId`; `limit` (≤ 500, default 500) and
/// `offset` apply when users are returned; `sortBy` `USER_ID` (default), `NAME`, `CREATED_AT`,
/// `LAST_LOGIN_AT` or `USER_EMAIL`, `order` `ASC` (default) or `DESC`. Without `returnUserInfo`
/// the answer is how many accounts match.
struct AccountQueryOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>

    static let sorts: [String: QueryAccounts.SortBy] = [
        "SORT_BY_FIELD_UNSPECIFIED": .userId, "USER_ID": .userId, "NAME": .name, "CREATED_AT": .createdAt,
        "LAST_LOGIN_AT": .lastLoginAt, "USER_EMAIL": .userEmail,
    ]

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(QueryUserInfoRequest.self)
        let scope = try AdminScope(request, tenantId: body.tenantId)
        guard let sortBy = Self.sorts[body.sortBy ?? "USER_ID"] else { throw IdentityToolkitError.invalidPayload("Unknown sortBy") }
        let returnUserInfo = body.returnUserInfo ?? true
        func number(_ text: String?, default value: Int, range: ClosedRange<Int>, name: String) throws -> Int {
            guard let text, !text.isEmpty else { return value }
            guard let parsed = Int(text), range.contains(parsed) else {
                throw IdentityToolkitError(.invalidArgument, detail: "\(name) must be \(range.lowerBound) to \(range.upperBound)")
            }
            return parsed
        }
        let limit = try number(body.limit, default: 500, range: 1...500, name: "limit")
        let offset = try number(body.offset, default: 0, range: 0...1_000_000, name: "offset")
        var condition: [QueryAccounts.Condition]?
        if let first = body.expression?.first {
            if let email = first.email {
                condition = [.init(email: email)]
            } else if let phone = first.phoneNumber {
                condition = [.init(phoneNumber: phone)]
            } else if let userId = first.userId {
                condition = [.init(userId: userId)]
            }
        }
        let result = try await PeerCall.call(
            registry, QueryAccounts.self,
            .init(
                projectId: scope.projectId, tenantId: scope.tenantId, expression: condition, sortBy: sortBy,
                descending: body.order == "DESC", limit: limit, offset: offset, returnUserInfo: returnUserInfo
            ),
            requestID: request.requestID
        )
        let users = result.accounts?.map { UserInfo($0, tenantId: scope.tenantId) }
        return try request.answer(
            QueryUserInfoResponse(recordsCount: String(result.recordsCount), userInfo: returnUserInfo ? users ?? [] : nil))
    }
}
