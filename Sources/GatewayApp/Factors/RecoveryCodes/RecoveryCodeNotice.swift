import AuthVocabulary
import Contracts
import Logging
import ServiceKit

/// The mail a recovery code's use sends to the account's verified address (docs/mfa-policy.md):
/// the owner learns that their second factor was bypassed, with a password-reset link in case it
/// was not them (someone with the password and a code). Sent after the sign-in finished; a mail
/// outage is logged and never undoes the sign-in, as with the new-factor notice.
struct RecoveryCodeNotice: Sendable {
    let mail: OutOfBandMail
    let logger: Logger

    static let requestType = OOBRequestType.recoveryCodeUsed

    func send(to account: Account, projectId: String, tenantId: String?, request: PublicRequest) async {
        guard let email = account.email, account.emailVerified else { return }
        do {
            let made = try await mail.make(
                .init(projectId: projectId, tenantId: tenantId, requestType: .passwordReset, localId: account.localId, email: email),
                apiKey: request.apiKey, continueUrl: nil, locale: request.locale, requestID: request.requestID
            )
            try await mail.send(
                made, requestType: Self.requestType, to: email, projectId: projectId, tenantId: tenantId, locale: request.locale,
                requestID: request.requestID
            )
        } catch {
            logger.warning("recovery-code notice not sent", metadata: ["request.id": "\(request.requestID)"])
        }
    }
}
