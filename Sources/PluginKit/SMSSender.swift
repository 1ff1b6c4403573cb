/// Sends one text message. Implementations (the development sink, an HTTP provider) are plugins:
/// they depend on this kit and their own transport only.
public protocol SMSSender: Sendable {
    /// A short name for logs and configuration (`sink`, `http`).
    var name: String { get }
    /// Delivers `text` to the E.164 number `to`, or throws ``DeliveryFailed`` (whose reason never
    /// holds the text or the whole number).
    func send(to: String, text: String) async throws
}
