import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:signUp` for end users (API key): an email/password account, or an anonymous one,
/// then its first tokens (contract §2.1).
struct SignUpOperation: Sendable {
    let registry: RPCClient
    let sessions: RPCClient
    let admin: AdminAccountOperations

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        // With an admin credential it is createUser, as on /v1/projects/{p}/accounts.
        guard case .apiKey(let projectId) = request.caller else { return try await admin.create(request) }
        let body = request.body
        if body["targetProjectId"] != nil {
            throw IdentityToolkitError.business("INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
        }
        if body["localId"] != nil { throw IdentityToolkitError.business("UNEXPECTED_PARAMETER : User ID") }
        if body["idToken"] != nil {
            // Upgrading an anonymous account needs ID-token verification, which comes with accounts:lookup.
            throw IdentityToolkitError.notImplemented("identitytoolkit.accounts.signUp with idToken")
        }
        let tenantId = body["tenantId"]?.stringValue
        let account = try await PeerCall.call(
            registry, SignUpAccount.self,
            .init(
                projectId: projectId, tenantId: tenantId, email: body["email"]?.stringValue,
                password: body["password"]?.stringValue, displayName: body["displayName"]?.stringValue
            ),
            requestID: request.requestID
        )
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: account.localId, signInProvider: account.signInProvider,
                authTime: Int64(Date().timeIntervalSince1970),
                user: SessionUser(account)
            ),
            requestID: request.requestID
        )
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#SignupNewUserResponse", "localId": .string(account.localId),
            "idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken),
            "expiresIn": .string(tokens.expiresIn),
        ]
        if let email = account.email { response["email"] = .string(email) }
        if let name = account.displayName { response["displayName"] = .string(name) }
        return .object(response)
    }
}
