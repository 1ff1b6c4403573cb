/// The text/plain body as lines for the wire, with the transfer encoding it needs.
///
/// Plain ASCII with lines of at most 998 octets goes as `7bit`, readable as is. Anything else
/// (non-ASCII, control characters, long lines) goes `quoted-printable`: unlike `8bit` it needs no
/// 8BITMIME support from the relay, and it keeps the mostly-ASCII text readable.
struct MessageBody {
    let transferEncoding: String
    /// Lines without their line breaks; the caller ends each with CRLF.
    let lines: [String]

    /// `text` may use `\n`, `\r\n` or `\r` line breaks; one final line break is not an extra line.
    init(_ text: String) {
        var normalized = text.replacingLineBreaks()
        if normalized.last == "\n" { normalized.removeLast() }
        let lines = normalized.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
        let isSevenBit = lines.allSatisfy { line in
            line.count <= 998 && line.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) }
        }
        if isSevenBit {
            transferEncoding = "7bit"
            self.lines = lines.map { String(decoding: $0, as: UTF8.self) }
        } else {
            transferEncoding = "quoted-printable"
            self.lines = lines.flatMap(QuotedPrintable.encode)
        }
    }
}

extension String {
    /// Every CRLF and lone CR as LF, so the body has one kind of line break before CRLF is applied.
    fileprivate func replacingLineBreaks() -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        var previousWasCR = false
        for scalar in unicodeScalars {
            switch scalar {
            case "\r": result.unicodeScalars.append("\n")
            case "\n" where previousWasCR: break
            default: result.unicodeScalars.append(scalar)
            }
            previousWasCR = scalar == "\r"
        }
        return result
    }
}
