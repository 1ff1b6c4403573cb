/// Quoted-printable (RFC 2045 6.7) for one body line.
enum QuotedPrintable {
    /// Encoded text stays within 76 characters per line: 75 plus the `=` of a soft line break.
    private static let maximumLineLength = 76
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// The wire lines for one line of text (its bytes, without the line break): soft breaks (`=` at
    /// the end) where it is too long, bytes outside printable ASCII as `=XX`.
    static func encode(_ line: [UInt8]) -> [String] {
        var lines: [String] = []
        var current: [UInt8] = []
        for (index, byte) in line.enumerated() {
            let isLast = index == line.count - 1
            // Spaces and tabs are literal except at the end of a line, where transports strip them.
            let literal = (byte >= 0x21 && byte <= 0x7E && byte != UInt8(ascii: "=")) || ((byte == 0x20 || byte == 0x09) && !isLast)
            let encoded = literal ? [byte] : [UInt8(ascii: "="), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            // The last piece of the line needs no room for a soft break after it.
            let room = isLast ? maximumLineLength : maximumLineLength - 1
            if current.count + encoded.count > room {
                lines.append(String(decoding: current + [UInt8(ascii: "=")], as: UTF8.self))
                current = []
            }
            current += encoded
        }
        lines.append(String(decoding: current, as: UTF8.self))
        return lines
    }
}
