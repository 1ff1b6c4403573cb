import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// Using an out-of-band code, wherever it arrives (`accounts:update {oobCode}`,
/// `accounts:resetPassword`, the action page): factor-registry applies it in one transaction, then
/// what follows in the other services happens here. An email change tells the old address, with a
/// `RECOVER_EMAIL` link back; a reverted factor loses its sessions and its TOTP secret.
struct OOBCodeApplication: Sendable {
    let registry: RPCClient
    let mail: OutOfBandMail
    let erasure: AccountErasure

    func apply(
        _ oobCode: String, requestTypes: [OOBRequestType], newPassword: String? = nil, projectId: String, tenantId: String?,
        apiKey: String?,
        locale: String?, requestID: String
    ) async throws -> ApplyOOBCode.Result {
        let applied = try await PeerCall.call(
            registry, ApplyOOBCode.self,
            .init(projectId: projectId, tenantId: tenantId, oobCode: oobCode, requestTypes: requestTypes, newPassword: newPassword),
            requestID: requestID
        )
        await mail.forget(oobCode, projectId: projectId, tenantId: tenantId, requestID: requestID)
        // Sessions ended from the next second on: answer once it has begun, so a sign-in that
        // follows the answer is not ended with them.
        try await SessionBoundary.awaitStart(of: applied.account.validSince)
        let localId = applied.account.localId
        switch applied.requestType {
        case .verifyAndChangeEmail:
            if let previous = applied.info?.email, !previous.isEmpty, let current = applied.account.email {
                try await noticeEmailChange(
                    localId: localId, from: previous, to: current, projectId: projectId, tenantId: tenantId, apiKey: apiKey,
                    locale: locale, requestID: requestID
                )
            }
        case .revertSecondFactorAddition:
            if let removed = applied.info?.enrollment {
                try await erasure.forgetFactors([removed], projectId: projectId, tenantId: tenantId, localId: localId, requestID: requestID)
            }
        default:
            break
        }
        return applied
    }

    /// The old address hears of an email change, with a `RECOVER_EMAIL` link that restores it and
    /// ends every session (the defence against a takeover that starts by changing the email).
    func noticeEmailChange(
        localId: String, from previous: String, to current: String, projectId: String, tenantId: String?, apiKey: String?,
        locale: String?, requestID: String
    ) async throws {
        let made = try await mail.make(
            .init(
                projectId: projectId, tenantId: tenantId, requestType: .recoverEmail, localId: localId, email: previous,
                newEmail: current
            ),
            apiKey: apiKey, continueUrl: nil, locale: locale, requestID: requestID
        )
        try await mail.send(
            made, requestType: .recoverEmail, to: previous, projectId: projectId, tenantId: tenantId, locale: locale,
            requestID: requestID
        )
    }
}
