import Contracts
import JSONRPC
import LocalizedMessages
import Logging
import PluginKit
import ServiceKit
import TenantStore

/// `message.sendEmail`: renders the message in the client's language with the scope's texts
/// (``MessageCatalog``), keeps it in the development outbox when running in development mode, and
/// hands it to the configured sender.
struct EmailDelivery: Sendable {
    let sender: any EmailSender
    /// Present in development mode only.
    let outbox: DevelopmentOutbox?
    /// The configured name; the project's id when none (``AppName``).
    let appName: String?
    let logger: Logger

    func send(_ params: SendEmail.Params) async throws -> SendEmail.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let kind = params.requestType
        // A change of address is sent to the new address: without `newEmail`, `email` is that one.
        var sent = params
        sent.newEmail = params.newEmail ?? (kind == .verifyAndChangeEmail ? params.email : nil)
        let message = MessageCatalog(params.notification).email(
            kind, locale: params.locale,
            values: EmailValues(
                appName: AppName.shown(configured: appName, projectId: params.projectId), email: params.email, link: params.oobLink,
                newEmail: sent.newEmail, secondFactor: params.secondFactor, linkedPhoneEnding: params.linkedPhoneEnding
            )
        )
        // The outbox shows the message as it went, the address it named included (the emulator's `newEmail`).
        try await outbox?.recordEmail(in: schema, sent, message: message)
        do {
            try await sender.send(EmailMessage(to: params.email, subject: message.subject, text: message.text, html: message.html))
        } catch let failure as DeliveryFailed {
            logger.error(
                "email not delivered",
                metadata: ["sender": "\(sender.name)", "to": "\(Redaction.email(params.email))", "reason": "\(failure.reason)"]
            )
            throw RPCError(code: .deliveryFailed, message: "The \(sender.name) sender could not deliver the message")
        }
        return .init(sender: sender.name)
    }

    func forget(_ params: ForgetOutboxOOBCode.Params) async throws {
        guard let outbox else { throw RPCError.methodNotFound(ForgetOutboxOOBCode.name) }
        try await outbox.forgetEmail(in: try ScopeSchema.of(params.projectId, params.tenantId), code: params.oobCode)
    }

    func oobCodes(_ scope: TenantScope) async throws -> ListOutboxOOBCodes.Result {
        guard let outbox else { throw RPCError.methodNotFound(ListOutboxOOBCodes.name) }
        let schema = try ScopeSchema.of(scope.projectId, scope.tenantId)
        return .init(oobCodes: try await outbox.oobCodes(in: schema))
    }
}
