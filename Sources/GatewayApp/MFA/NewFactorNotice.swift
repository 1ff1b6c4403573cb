import Contracts
import Logging
import ServiceKit

/// Identity Platform's defence against someone who got in and enrolled their own factor: the
/// account's verified address is told of every new second factor or passkey, with a
/// `REVERT_SECOND_FACTOR_ADDITION` link that removes it and ends every session. The enrollment
/// stands if the mail cannot be sent (it is logged): the user already proved the factor, and a mail
/// outage must not undo that.
struct NewFactorNotice: Sendable {
    let mail: OutOfBandMail
    let logger: Logger

    /// `factorId`: the enrollment's id, or a passkey's `passkey:<credential id>`.
    func send(
        factorId: String, named factor: NewSecondFactor, account: Account, projectId: String, tenantId: String?,
        request: PublicRequest
    ) async {
        guard let email = account.email, account.emailVerified else { return }
        do {
            let made = try await mail.make(
                .init(
                    projectId: projectId, tenantId: tenantId, requestType: .revertSecondFactorAddition, localId: account.localId,
                    enrollmentId: factorId
                ),
                apiKey: request.apiKey, continueUrl: nil, locale: request.locale, requestID: request.requestID
            )
            try await mail.send(
                made, requestType: .revertSecondFactorAddition, to: email, projectId: projectId, tenantId: tenantId,
                secondFactor: factor, locale: request.locale, requestID: request.requestID
            )
        } catch {
            logger.warning(
                "new-factor notice not sent", metadata: ["request.id": "\(request.requestID)", "factor.kind": "\(factor.kind.rawValue)"]
            )
        }
    }
}
