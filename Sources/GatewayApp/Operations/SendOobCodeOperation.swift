import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:sendOobCode` and its admin form (contract §2.5), `VERIFY_EMAIL` only: the user
/// named by the ID token (client) or by `email` (admin) gets a single-use code, mailed through
/// challenge-issuer's sender, or returned as a link to an admin that asks (`returnOobLink`).
struct SendOobCodeOperation: Sendable {
    let registry: RPCClient
    let sessions: RPCClient
    let challenges: RPCClient
    let links: OobLinkBuilder

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = request.body
        let returnOobLink = AdminAccountOperations.bool(body["returnOobLink"]) ?? false
        if returnOobLink, request.caller != .admin { throw IdentityToolkitError.business("INSUFFICIENT_PERMISSION") }
        guard let requestType = body["requestType"]?.stringValue, requestType != "OOB_REQ_TYPE_UNSPECIFIED" else {
            throw IdentityToolkitError.business("MISSING_REQ_TYPE")
        }
        let continueUrl = body["continueUrl"]?.stringValue
        if let continueUrl, !OobLinkBuilder.isAbsolute(continueUrl) {
            throw IdentityToolkitError.business("INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))")
        }
        guard requestType == "VERIFY_EMAIL" else {
            throw IdentityToolkitError.notImplemented("sendOobCode with requestType \(requestType)")
        }

        let projectId: String
        let tenantId: String?
        let code: CreateOobCode.Result
        if request.caller == .admin, body["idToken"] == nil {
            let scope = try AdminScope(request)
            guard let email = body["email"]?.stringValue, !email.isEmpty else {
                throw IdentityToolkitError.business("MISSING_EMAIL")
            }
            (projectId, tenantId) = (scope.projectId, scope.tenantId)
            try await ScopeSettings.requireAuthorized(
                continueUrl: continueUrl, registry, projectId: projectId, tenantId: tenantId, requestID: request.requestID
            )
            code = try await PeerCall.call(
                registry, CreateOobCode.self,
                .init(projectId: projectId, tenantId: tenantId, requestType: requestType, email: email),
                requestID: request.requestID
            )
        } else {
            // A missing token is an invalid one here (the emulator's answer, §2.5).
            guard body["idToken"]?.stringValue?.isEmpty == false else {
                throw IdentityToolkitError.business("INVALID_ID_TOKEN")
            }
            let user = try await SignedInUser.resolve(request, registry: registry, sessions: sessions)
            guard user.account.email != nil else { throw IdentityToolkitError.business("MISSING_EMAIL") }
            (projectId, tenantId) = (user.token.projectId, user.token.tenantId)
            try await ScopeSettings.requireAuthorized(
                continueUrl: continueUrl, registry, projectId: projectId, tenantId: tenantId, requestID: request.requestID
            )
            code = try await PeerCall.call(
                registry, CreateOobCode.self,
                .init(
                    projectId: projectId, tenantId: tenantId, requestType: requestType, localId: user.account.localId,
                    clientAddress: request.clientAddress
                ),
                requestID: request.requestID
            )
        }
        let link = links.verifyEmailLink(oobCode: code.oobCode, apiKey: request.apiKey, tenantId: tenantId, continueUrl: continueUrl)
        var response: [String: JSONValue] = ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(code.email)]
        if returnOobLink {
            // The admin delivers the link itself (Admin SDK generateEmailVerificationLink).
            response["oobCode"] = .string(code.oobCode)
            response["oobLink"] = .string(link)
            return .object(response)
        }
        do {
            _ = try await challenges.call(
                SendEmail.self,
                .init(
                    projectId: projectId, tenantId: tenantId, requestType: requestType, email: code.email,
                    oobCode: code.oobCode, oobLink: link
                ),
                requestID: request.requestID
            )
        } catch let error as RPCError where error.code == .deliveryFailed {
            throw IdentityToolkitError.unavailable
        } catch is RPCTransportError {
            throw IdentityToolkitError.unavailable
        }
        return .object(response)
    }
}
