/// Sends one text message. Implementations (the development sink, an HTTP provider) are plugins:
/// they depend on this kit and their own transport only.
public protocol SMSSender: Sendable {
    /// A short name for logs and configuration (`sink`, `http`).
    var name: String { get }
    /// Delivers the message, or throws ``DeliveryFailed`` (whose reason never holds the text or
    /// the whole number).
    func send(_ message: SMSMessage) async throws
}

/// One rendered SMS to one E.164 number, with how it travels: a provider that takes raw PDUs or a
/// data coding scheme reads `encoding`; one that takes Unicode text (most HTTP APIs) sends `text`.
public struct SMSMessage: Sendable, Hashable {
    public enum Encoding: String, Sendable, Hashable {
        /// The GSM 03.38 default alphabet: 160 characters per single segment.
        case gsm7 = "GSM-7"
        /// UTF-16: 70 characters per single segment.
        case ucs2 = "UCS-2"
    }

    public var to: String
    public var text: String
    public var encoding: Encoding
    /// How many segments the network carries it in (each one billed).
    public var segments: Int

    public init(to: String, text: String, encoding: Encoding, segments: Int) {
        self.to = to
        self.text = text
        self.encoding = encoding
        self.segments = segments
    }
}
