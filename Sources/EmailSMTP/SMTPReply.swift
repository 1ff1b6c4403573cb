/// One complete server reply: the code and the text of each of its lines (`250-a`, `250 b` → a, b).
struct SMTPReply: Sendable, Hashable {
    let code: Int
    let lines: [String]
    /// Whether it arrived through TLS. After STARTTLS a reply that did not is plaintext the server
    /// (or someone on the path) sent before the handshake: STARTTLS response injection.
    let overTLS: Bool

    /// The first line of text for an error message: printable ASCII only, shortened.
    var summary: String {
        let text = String((lines.first ?? "").unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(160))
        return text.isEmpty ? "" : " (\(text))"
    }
}
