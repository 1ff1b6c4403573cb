import Foundation

/// The Subject header, as RFC 2047 encoded-words when it cannot go as plain ASCII.
enum MIMEHeaderEncoding {
    /// RFC 2047 2: a header line holding encoded-words is at most 76 characters. `Subject: ` takes 9,
    /// `=?UTF-8?B?` and `?=` take 12, and 39 bytes make 52 base64 characters: 73 on the first line.
    private static let bytesPerWord = 39

    /// `Subject: …` as one header, folded with CRLF + space between encoded-words when it is long.
    /// ASCII text goes as is unless it is too long for one line (998) or contains `=?`, which a
    /// reader could take for the start of an encoded-word.
    static func subjectHeader(_ subject: String) -> String {
        let header = "Subject: \(subject)"
        if subject.unicodeScalars.allSatisfy(\.isASCII), header.utf8.count <= 998, !subject.contains("=?") {
            return header
        }
        return "Subject: " + encodedWords(subject).joined(separator: "\r\n ")
    }

    /// Base64 encoded-words, each holding whole UTF-8 characters (RFC 2047 5: a character is never
    /// split across words).
    static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > bytesPerWord {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?\(Data(bytes).base64EncodedString())?="
    }
}
