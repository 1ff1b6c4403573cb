import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:lookup` and `v1/accounts:delete` for the signed-in user (contract §2.3, §2.6).
/// The Admin SDKs' privileged forms (by `localId`, `email`, …) come with the admin endpoints.
struct AccountOperations: Sendable {
    let registry: RPCClient
    let sessions: RPCClient

    func lookup(_ request: PublicRequest) async throws -> JSONValue {
        guard request.body["idToken"] != nil || request.caller != .admin else {
            throw IdentityToolkitError.notImplemented("identitytoolkit.accounts.lookup (privileged)")
        }
        let user = try await SignedInUser.resolve(request, registry: registry, sessions: sessions)
        return ["kind": "identitytoolkit#GetAccountInfoResponse", "users": [Self.userInfo(user.account, tenantId: user.token.tenantId)]]
    }

    func delete(_ request: PublicRequest) async throws -> JSONValue {
        guard request.body["idToken"] != nil || request.caller != .admin else {
            throw IdentityToolkitError.notImplemented("identitytoolkit.accounts.delete (privileged)")
        }
        let user = try await SignedInUser.resolve(request, registry: registry, sessions: sessions)
        _ = try await PeerCall.call(
            registry, DeleteAccount.self,
            .init(projectId: user.token.projectId, tenantId: user.token.tenantId, localId: user.account.localId),
            requestID: request.requestID
        )
        return ["kind": "identitytoolkit#DeleteAccountResponse"]
    }

    /// The `UserInfo` shape of lookup responses. The password hash is redacted as production does.
    static func userInfo(_ account: Account, tenantId: String?) -> JSONValue {
        var info: [String: JSONValue] = [
            "localId": .string(account.localId), "emailVerified": .bool(account.emailVerified),
            "disabled": .bool(account.disabled), "createdAt": .string(account.createdAt), "providerUserInfo": [],
        ]
        if let email = account.email {
            info["email"] = .string(email)
            info["passwordHash"] = "UkVEQUNURUQ="
            var provider: [String: JSONValue] = [
                "providerId": "password", "federatedId": .string(email), "email": .string(email), "rawId": .string(email),
            ]
            if let name = account.displayName { provider["displayName"] = .string(name) }
            info["providerUserInfo"] = [.object(provider)]
        }
        if let name = account.displayName { info["displayName"] = .string(name) }
        if let validSince = account.validSince { info["validSince"] = .string(String(validSince)) }
        if let lastLoginAt = account.lastLoginAt { info["lastLoginAt"] = .string(lastLoginAt) }
        if let tenantId { info["tenantId"] = .string(tenantId) }
        return .object(info)
    }
}
