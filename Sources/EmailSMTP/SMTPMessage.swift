import Foundation
import PluginKit

/// An ``EmailMessage`` rendered for the wire: the envelope addresses and the DATA payload (RFC 5322
/// headers, a MIME text/plain body, or multipart/alternative with an HTML part, CRLF line endings,
/// dot-stuffing and the closing `.` line).
///
/// Rendering checks every value that ends up in a header or a command first, so an address or a
/// subject carrying a line break (header or command injection) is refused before any connection.
/// Public so the exact bytes can be inspected (tests, diagnostics).
public struct SMTPMessage: Sendable, Hashable {
    /// The envelope sender, without angle brackets.
    public let sender: String
    /// The envelope recipient, without angle brackets.
    public let recipient: String
    /// What follows DATA, up to and including the terminating `.` line.
    public let data: String

    /// Throws ``DeliveryFailed`` when an address or the subject is unusable; the reason names the
    /// field, never its value or the body.
    public init(
        _ message: EmailMessage, from sender: String, date: Date = Date(), messageID: String? = nil, boundary: String? = nil
    ) throws {
        if let problem = MailAddress.problem(with: sender) { throw DeliveryFailed("sender address \(problem)") }
        if let problem = MailAddress.problem(with: message.to) { throw DeliveryFailed("recipient address \(problem)") }
        if message.subject.unicodeScalars.contains(where: MailAddress.isControl) {
            throw DeliveryFailed("subject contains a line break or control character")
        }
        self.sender = sender
        self.recipient = message.to

        let domain = MailAddress.domain(of: sender)
        let text = MessageBody(message.text)
        var headers = [
            "Date: \(MessageDate.rfc5322(date))",
            "From: \(sender)",
            "To: \(message.to)",
            MIMEHeaderEncoding.subjectHeader(message.subject),
            "Message-ID: \(messageID ?? "<\(UUID().uuidString.lowercased())@\(domain)>")",
            "MIME-Version: 1.0",
        ]
        var content: [String]
        if let html = message.html.map(MessageBody.init) {
            // The boundary is random, and quoted-printable or 7-bit bodies cannot contain "--" + it.
            let boundary = boundary ?? "=_\(UUID().uuidString.lowercased())"
            headers.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
            content = [
                "--\(boundary)", "Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: \(text.transferEncoding)", "",
            ]
            content += text.lines
            content += [
                "--\(boundary)", "Content-Type: text/html; charset=UTF-8", "Content-Transfer-Encoding: \(html.transferEncoding)", "",
            ]
            content += html.lines + ["--\(boundary)--"]
        } else {
            headers += ["Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: \(text.transferEncoding)"]
            content = text.lines
        }
        // Dot-stuffing (RFC 5321 4.5.2): a line that starts with "." gets one more, so no line of the
        // message can be read as the end of the data. The server removes it again.
        let lines = (headers + [""] + content).map { $0.hasPrefix(".") ? "." + $0 : $0 }
        self.data = lines.map { $0 + "\r\n" }.joined() + ".\r\n"
    }
}
