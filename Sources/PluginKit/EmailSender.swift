/// Sends an email that challenge-issuer has already rendered. Implementations (the development
/// sink, SMTP) are plugins: they depend on this kit only, never on the services' frameworks.
public protocol EmailSender: Sendable {
    /// A short name for logs and configuration (`sink`, `smtp`).
    var name: String { get }
    /// Delivers the message or throws ``DeliveryFailed``; never logs the body (it holds codes).
    func send(_ message: EmailMessage) async throws
}

/// One email to one recipient: plain text, with an HTML alternative when the operator wrote one.
public struct EmailMessage: Sendable, Hashable {
    public var to: String
    public var subject: String
    /// The body, lines separated by `\n`; the sender converts line endings for the wire.
    public var text: String
    /// The same message as HTML (its values already escaped), sent beside `text`.
    public var html: String?

    public init(to: String, subject: String, text: String, html: String? = nil) {
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
    }
}

/// A sender could not deliver. `reason` is safe to log: it never contains the message body.
public struct DeliveryFailed: Error, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { "delivery failed: \(reason)" }
}
