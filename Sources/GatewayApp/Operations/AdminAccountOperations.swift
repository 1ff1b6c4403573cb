import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// What the Admin SDKs call on `/v1/projects/{p}[/tenants/{t}]/accounts…` (contract §1.7):
/// `createUser`, `getUser(s)` by id or email, `deleteUser`.
struct AdminAccountOperations: Sendable {
    let registry: RPCClient

    /// `POST …/accounts` (createUser): no tokens in the answer.
    func create(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        let body = request.body
        if body["idToken"] != nil, body["localId"] != nil {
            throw IdentityToolkitError.business("UNEXPECTED_PARAMETER : User ID")
        }
        let account = try await PeerCall.call(
            registry, CreateAccount.self,
            .init(
                projectId: scope.projectId, tenantId: scope.tenantId, localId: body["localId"]?.stringValue,
                email: body["email"]?.stringValue, password: body["password"]?.stringValue,
                displayName: body["displayName"]?.stringValue, emailVerified: Self.bool(body["emailVerified"]),
                disabled: Self.bool(body["disabled"])
            ),
            requestID: request.requestID
        )
        var response: [String: JSONValue] = ["kind": "identitytoolkit#SignupNewUserResponse", "localId": .string(account.localId)]
        if let email = account.email { response["email"] = .string(email) }
        if let name = account.displayName { response["displayName"] = .string(name) }
        return .object(response)
    }

    /// `POST …/accounts:lookup`: `users` is omitted when nothing matched (the SDKs rely on it).
    func lookup(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        let found = try await PeerCall.call(
            registry, FindAccounts.self,
            .init(
                projectId: scope.projectId, tenantId: scope.tenantId, localIds: Self.strings(request.body["localId"]),
                emails: Self.strings(request.body["email"])
            ),
            requestID: request.requestID
        )
        var response: [String: JSONValue] = ["kind": "identitytoolkit#GetAccountInfoResponse"]
        if !found.accounts.isEmpty {
            response["users"] = .array(found.accounts.map { AccountOperations.userInfo($0, tenantId: scope.tenantId) })
        }
        return .object(response)
    }

    /// `POST …/accounts:delete` (deleteUser).
    func delete(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        guard let localId = request.body["localId"]?.stringValue, !localId.isEmpty else {
            throw IdentityToolkitError.business("MISSING_LOCAL_ID")
        }
        _ = try await PeerCall.call(
            registry, DeleteAccount.self, .init(projectId: scope.projectId, tenantId: scope.tenantId, localId: localId),
            requestID: request.requestID
        )
        return ["kind": "identitytoolkit#DeleteAccountResponse"]
    }

    static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap(\.stringValue)
    }

    static func bool(_ value: JSONValue?) -> Bool? {
        if case .bool(let flag)? = value { return flag }
        return nil
    }
}
