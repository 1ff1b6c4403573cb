/// What logs may show of a recipient: enough to tell messages apart, never the whole address.
enum Redaction {
    /// `a***@example.com`.
    static func email(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@"), at > address.startIndex else { return "***" }
        return "\(address[address.startIndex])***\(address[at...])"
    }
}
