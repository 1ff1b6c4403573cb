import Foundation

/// A continue URL as a browser will follow it (issue 39, M-4). Foundation and browsers read some
/// URLs differently: `https://evil.example\@localhost/` is host `localhost` to Foundation and host
/// `evil.example` to a browser (WHATWG turns `\` into `/` in http(s) URLs), so a check on what
/// Foundation sees would wave the attacker's site through. Rather than re-implement the WHATWG
/// parser, anything on which the two could disagree is refused: only `http` and `https`, an
/// authority right after `//` with no user information, no backslash, no percent sign in the
/// authority, no space or control character anywhere. What is left has one reading.
enum ContinueURL {
    /// The lower-cased host a browser would go to; `nil` for anything else (`INVALID_CONTINUE_URI`).
    static func host(of text: String) -> String? {
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "\\" }) else { return nil }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("%") else { return nil }
        guard let components = URLComponents(string: text), components.user == nil, components.password == nil,
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        return host
    }
}
