/// Checks for the addresses that go into MAIL FROM, RCPT TO and the From/To headers.
///
/// Deliberately narrower than RFC 5321: a plain ASCII `local@domain` with no spaces, quotes, brackets
/// or list separators. That is what the services send to, and anything else would have to be escaped
/// or quoted in a command or header, which is where injection starts.
enum MailAddress {
    /// Characters that would end, split or quote a command argument or a header value.
    private static let forbidden: Set<Character> = ["<", ">", "(", ")", ",", ";", ":", "\"", "\\", "[", "]"]

    /// Why `address` is refused, phrased to follow "recipient address …"; nil when it is usable.
    /// Never includes the address itself (it is personal data in logs).
    static func problem(with address: String) -> String? {
        if address.unicodeScalars.contains(where: isControl) { return "contains a line break or control character" }
        guard address.unicodeScalars.allSatisfy({ $0.isASCII }) else { return "is not ASCII (SMTPUTF8 is not supported)" }
        if address.contains(" ") { return "contains a space" }
        if address.contains(where: forbidden.contains) { return "contains a character that needs quoting" }
        guard let at = address.lastIndex(of: "@"), at != address.startIndex, address.index(after: at) != address.endIndex
        else { return "is not of the form local@domain" }
        // RFC 5321 4.5.3.1: a path is at most 256 octets including the brackets.
        if address.utf8.count > 254 { return "is longer than 254 characters" }
        return nil
    }

    /// The part after the last `@` (the Message-ID and default EHLO domain).
    static func domain(of address: String) -> String {
        address.lastIndex(of: "@").map { String(address[address.index(after: $0)...]) } ?? address
    }

    /// C0 controls (CR, LF, TAB, NUL…), DEL, C1 controls and the Unicode line/paragraph separators:
    /// anything a mail parser might treat as the end of a line.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }
}
