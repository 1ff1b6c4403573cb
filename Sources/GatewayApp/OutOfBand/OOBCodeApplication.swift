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
    let registry: PeerClient<FactorRegistryAPI>
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
                    localId: localId, from: previous, proved: applied.info?.emailProved, to: current, projectId: projectId,
                    tenantId: tenantId, apiKey: apiKey, locale: locale, requestID: requestID
                )
            }
        case .recoverEmail:
            // The recovery removed the password, whoever set it (issue 56, F-7): the owner gets a
            // link to choose a new one at once, at the address just restored.
            if let restored = applied.account.email {
                await offerPasswordReset(
                    localId: localId, email: restored, projectId: projectId, tenantId: tenantId, apiKey: apiKey, locale: locale,
                    requestID: requestID)
            }
        case .revertSecondFactorAddition:
            // The factor, and the recovery codes that went with the account's last one.
            let removed = (applied.info?.enrollment.map { [$0] } ?? []) + (applied.info?.alsoRemoved ?? [])
            if !removed.isEmpty {
                try await erasure.forgetFactors(removed, projectId: projectId, tenantId: tenantId, localId: localId, requestID: requestID)
            }
        default:
            break
        }
        return applied
    }

    /// A password reset mailed to the address an email recovery restored. The recovery has
    /// committed by now: a mail outage leaves it done, and the owner asks for a reset themselves.
    private func offerPasswordReset(
        localId: String, email: String, projectId: String, tenantId: String?, apiKey: String?, locale: String?, requestID: String
    ) async {
        do {
            let made = try await mail.make(
                .init(projectId: projectId, tenantId: tenantId, requestType: .passwordReset, localId: localId, email: email),
                apiKey: apiKey, continueUrl: nil, locale: locale, requestID: requestID
            )
            try await mail.send(
                made, requestType: .passwordReset, to: email, projectId: projectId, tenantId: tenantId, locale: locale,
                requestID: requestID)
        } catch {
            // The answer says the address is restored, which it is; the reset can be asked for again.
        }
    }

    /// The old address hears of an email change, with a `RECOVER_EMAIL` link that restores it and
    /// ends every session (the defence against a takeover that starts by changing the email).
    /// `proved`: whether the old address had been proved; a link to one that had not is its first
    /// proof when used, and claims the account (issue 56).
    func noticeEmailChange(
        localId: String, from previous: String, proved: Bool?, to current: String, projectId: String, tenantId: String?,
        apiKey: String?, locale: String?, requestID: String
    ) async throws {
        let made = try await mail.make(
            .init(
                projectId: projectId, tenantId: tenantId, requestType: .recoverEmail, localId: localId, email: previous,
                newEmail: current, emailProved: proved
            ),
            apiKey: apiKey, continueUrl: nil, locale: locale, requestID: requestID
        )
        try await mail.send(
            made, requestType: .recoverEmail, to: previous, projectId: projectId, tenantId: tenantId, locale: locale,
            requestID: requestID
        )
    }
}
