import EmailSMTP
import Foundation
import PluginKit
import TestSupport
import Testing

@Suite("Rendering an email for SMTP DATA")
struct SMTPMessageTests {
    /// Thursday 2024-02-29 12:34:56 UTC.
    static let date = Date(timeIntervalSince1970: 1_709_210_096)

    static func render(to: String = "alice@example.org", subject: String = "Your code", text: String) throws -> SMTPMessage {
        try SMTPMessage(
            EmailMessage(to: to, subject: subject, text: text), from: "noreply@mfa.example", date: date, messageID: "<id-1@mfa.example>"
        )
    }

    /// The data's lines without their CRLF, and the header block and body split at the empty line.
    static func parts(_ message: SMTPMessage) -> (headers: [String], body: [String]) {
        let lines = message.data.components(separatedBy: "\r\n")
        let blank = lines.firstIndex(of: "") ?? lines.endIndex
        return (Array(lines[..<blank]), Array(lines[(blank + 1)...].dropLast()))  // dropLast: after the final CRLF
    }

    @Test("every line ends with CRLF whatever line breaks the body used, and a final line break adds no line")
    func crlfLineEndings() throws {
        let message = try Self.render(text: "one\ntwo\r\nthree\rfour\n")
        let data = Array(message.data.utf8)
        for (index, byte) in data.enumerated() {
            if byte == UInt8(ascii: "\n") {
                #expect(index > 0 && data[index - 1] == UInt8(ascii: "\r"), "bare LF at \(index)")
            }
            if byte == UInt8(ascii: "\r") {
                #expect(index + 1 < data.count && data[index + 1] == UInt8(ascii: "\n"), "bare CR at \(index)")
            }
        }
        #expect(message.data.hasSuffix("\r\n\r\none\r\ntwo\r\nthree\r\nfour\r\n.\r\n"))
    }

    @Test("a line starting with a dot gets a second one, so only the closing lone dot ends the data")
    func dotStuffing() throws {
        let message = try Self.render(text: ".start\nmiddle . dot\n..two\n.")
        #expect(Self.parts(message).body == ["..start", "middle . dot", "...two", "..", "."])
        #expect(message.data.hasSuffix("\r\n..\r\n.\r\n"))
    }

    @Test("the headers: RFC 5322 Date, From, To, Subject, Message-ID, MIME text/plain UTF-8 in 7bit for ASCII text")
    func headers() throws {
        let message = try Self.render(text: "Your code is 123456.")
        #expect(message.sender == "noreply@mfa.example")
        #expect(message.recipient == "alice@example.org")
        #expect(
            Self.parts(message).headers == [
                "Date: Thu, 29 Feb 2024 12:34:56 +0000",
                "From: noreply@mfa.example",
                "To: alice@example.org",
                "Subject: Your code",
                "Message-ID: <id-1@mfa.example>",
                "MIME-Version: 1.0",
                "Content-Type: text/plain; charset=UTF-8",
                "Content-Transfer-Encoding: 7bit",
            ]
        )
        let generated = try SMTPMessage(EmailMessage(to: "a@b.org", subject: "s", text: "t"), from: "noreply@mfa.example")
        let messageID = try #require(Self.parts(generated).headers.first { $0.hasPrefix("Message-ID: ") })
        #expect(messageID.hasPrefix("Message-ID: <") && messageID.hasSuffix("@mfa.example>"))
    }

    @Test(
        "the Date header in UTC with English names and zero padding, before 1970 and in leap years too",
        arguments: [
            (0, "Thu, 01 Jan 1970 00:00:00 +0000"),
            (-1, "Wed, 31 Dec 1969 23:59:59 +0000"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 +0000"),
            (1_709_210_096, "Thu, 29 Feb 2024 12:34:56 +0000"),
            (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 +0000"),
        ]
    )
    func dateHeader(seconds: Int, expected: String) throws {
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        let message = try SMTPMessage(EmailMessage(to: "a@b.org", subject: "s", text: "t"), from: "x@y.org", date: date)
        #expect(Self.parts(message).headers.first == "Date: \(expected)")
    }

    @Test("a non-ASCII subject goes as RFC 2047 encoded-words that decode back to it, each line within 76 characters")
    func encodedSubject() throws {
        let subject = "Код подтверждения для входа в учётную запись — 123456 ✅ (действует 10 минут)"
        let message = try Self.render(subject: subject, text: "t")
        let headers = Self.parts(message).headers
        let start = try #require(headers.firstIndex { $0.hasPrefix("Subject: ") })
        let subjectLines = [headers[start]] + headers[(start + 1)...].prefix { $0.hasPrefix(" ") }
        #expect(subjectLines.count > 1, "a long subject is folded")
        #expect(subjectLines.allSatisfy { $0.utf8.count <= 76 && $0.unicodeScalars.allSatisfy(\.isASCII) })
        let words = subjectLines.map { $0.hasPrefix("Subject: ") ? String($0.dropFirst(9)) : String($0.dropFirst()) }
        var decoded: [UInt8] = []
        for word in words {
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let payload = try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2))))
            // Each word holds whole characters: it decodes as UTF-8 on its own.
            #expect(String(validating: payload, as: UTF8.self) != nil)
            decoded += payload
        }
        #expect(String(decoding: decoded, as: UTF8.self) == subject)

        // ASCII stays readable, unless it could be mistaken for an encoded-word.
        #expect(Self.parts(try Self.render(subject: "Your code: 123456", text: "t")).headers.contains("Subject: Your code: 123456"))
        #expect(!Self.parts(try Self.render(subject: "=?UTF-8?B?SGk=?=", text: "t")).headers.contains("Subject: =?UTF-8?B?SGk=?="))
    }

    @Test("a non-ASCII body goes quoted-printable in lines of at most 76 characters that decode back to it")
    func quotedPrintableBody() throws {
        let text = "Grüße, Jürgen!\nCode: 123456 = \(String(repeating: "é", count: 60))\ntrailing space \n.dot"
        let message = try Self.render(text: text)
        let (headers, lines) = Self.parts(message)
        #expect(lines.last == ".")
        let body = lines.dropLast()  // the terminating dot
        #expect(headers.contains("Content-Transfer-Encoding: quoted-printable"))
        #expect(body.allSatisfy { $0.utf8.count <= 76 && $0.unicodeScalars.allSatisfy(\.isASCII) })
        #expect(body.first == "Gr=C3=BC=C3=9Fe, J=C3=BCrgen!")
        #expect(body.contains("trailing space=20"))
        #expect(body.last == "..dot")  // dot-stuffed on the wire; unstuffed by the server before decoding
        let unstuffed = body.map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }
        #expect(Self.decodeQuotedPrintable(unstuffed) == text)
    }

    @Test(
        "an address or subject with a line break or control character is refused, naming the field but not the value",
        arguments: [
            ("alice@example.org\r\nBcc: evil@attacker.example", "Hi", "recipient"),
            ("alice@example.org\n", "Hi", "recipient"),
            ("alice@example.org", "Hi\r\nBcc: evil@attacker.example", "subject"),
            ("alice@example.org", "Hi\nevil", "subject"),
            ("alice@example.org", "tab\there", "subject"),
            ("alice@example.org", "nul\u{0}evil", "subject"),
            ("alice@example.org", "line\u{2028}separator evil", "subject"),
        ]
    )
    func injectionRefused(to: String, subject: String, field: String) throws {
        let error = #expect(throws: DeliveryFailed.self) { try Self.render(to: to, subject: subject, text: "body") }
        #expect(error?.reason.contains(field) == true, "\(error?.reason ?? "")")
        #expect(error?.reason.contains("evil") == false)
    }

    @Test("a sender address with a line break is refused")
    func senderInjectionRefused() throws {
        let email = EmailMessage(to: "alice@example.org", subject: "Hi", text: "body")
        let error = #expect(throws: DeliveryFailed.self) {
            try SMTPMessage(email, from: "noreply@mfa.example\r\nRCPT TO:<evil@attacker.example>")
        }
        #expect(error?.reason.contains("sender") == true)
    }

    @Test(
        "an address that would need quoting, or is not local@domain, is refused",
        arguments: [
            "Alice <alice@example.org>", "alice@example.org, bob@example.org", "alice", "@example.org", "alice@",
            "ålice@example.org", "al ice@example.org",
        ]
    )
    func unusableAddressRefused(address: String) throws {
        #expect(throws: DeliveryFailed.self) { try Self.render(to: address, text: "body") }
    }

    @Test("the sender refuses an injected header or EHLO domain before connecting")
    func senderRefusesBeforeConnecting() async throws {
        // Nothing listens there: had it connected, the reason would be about the connection.
        let configuration = SMTPConfiguration(
            host: "127.0.0.1", port: try LoopbackPort.free(), from: "noreply@mfa.example", security: .plain
        )
        let sender = try SMTPEmailSender(configuration: configuration)
        let error = await #expect(throws: DeliveryFailed.self) {
            try await sender.send(EmailMessage(to: "alice@example.org", subject: "Hi\r\nBcc: evil@attacker.example", text: "body"))
        }
        #expect(error?.reason.contains("subject") == true, "\(error?.reason ?? "")")

        var injected = configuration
        injected.ehloDomain = "mfa.example\r\nRCPT TO:<evil@attacker.example>"
        let ehloError = await #expect(throws: DeliveryFailed.self) {
            try await SMTPEmailSender(configuration: injected).send(EmailMessage(to: "alice@example.org", subject: "Hi", text: "body"))
        }
        #expect(ehloError?.reason.contains("EHLO") == true, "\(ehloError?.reason ?? "")")
    }

    /// Just enough of RFC 2045 6.7 to check the encoder: soft breaks and `=XX`.
    static func decodeQuotedPrintable(_ lines: [String]) -> String {
        var bytes: [UInt8] = []
        for line in lines {
            var characters = Array(line.utf8)
            let soft = characters.last == UInt8(ascii: "=")
            if soft { characters.removeLast() }
            var index = 0
            while index < characters.count {
                if characters[index] == UInt8(ascii: "="), index + 2 < characters.count,
                    let value = UInt8(String(decoding: characters[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
                {
                    bytes.append(value)
                    index += 3
                } else {
                    bytes.append(characters[index])
                    index += 1
                }
            }
            if !soft { bytes += Array("\n".utf8) }
        }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
