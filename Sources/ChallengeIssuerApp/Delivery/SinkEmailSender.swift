import Logging
import PluginKit

/// The development sink: delivers nothing. Messages are kept in the development outbox instead,
/// where `GET /emulator/v1/projects/{p}/oobCodes` finds them.
struct SinkEmailSender: EmailSender {
    let logger: Logger

    var name: String { "sink" }

    func send(_ message: EmailMessage) async throws {
        logger.info("email kept in the development outbox", metadata: ["to": "\(Redaction.email(message.to))"])
    }
}

/// A sender for a deployment that configured none: every send fails, visibly.
struct UnconfiguredEmailSender: EmailSender {
    var name: String { "none" }

    func send(_ message: EmailMessage) async throws {
        throw DeliveryFailed("no email sender is configured (set email.sender and its settings)")
    }
}
