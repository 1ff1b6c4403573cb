/// What the server announced in its EHLO reply (RFC 5321 4.1.1.1): one extension per line after the first.
struct Capabilities {
    var keywords: Set<String> = []
    var authMechanisms: Set<String> = []

    init(_ reply: SMTPReply) {
        for line in reply.lines.dropFirst() {
            // `AUTH=PLAIN LOGIN` is the form some old servers still send beside `AUTH PLAIN LOGIN`.
            let words = line.uppercased().split(whereSeparator: { $0 == " " || $0 == "=" }).map(String.init)
            guard let keyword = words.first else { continue }
            keywords.insert(keyword)
            if keyword == "AUTH" { authMechanisms.formUnion(words.dropFirst()) }
        }
    }
}
