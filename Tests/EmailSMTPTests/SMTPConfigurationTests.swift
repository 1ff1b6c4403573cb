import EmailSMTP
import Testing

@Suite("SMTP configuration")
struct SMTPConfigurationTests {
    @Test("a trust-roots file that cannot be read fails when the sender is made, not at the first email")
    func unreadableTrustRoots() throws {
        let configuration = SMTPConfiguration(
            host: "127.0.0.1", from: "noreply@mfa.example", security: .startTLS, trustRootsPath: "/nonexistent/ca.pem"
        )
        #expect(throws: SMTPConfiguration.Invalid.self) { try SMTPEmailSender(configuration: configuration) }
    }

    @Test("the port defaults to the security mode's (25, 587, 465)")
    func defaultPorts() {
        #expect(SMTPConfiguration(host: "h", from: "a@b.org", security: .plain).port == 25)
        #expect(SMTPConfiguration(host: "h", from: "a@b.org").port == 587)
        #expect(SMTPConfiguration(host: "h", from: "a@b.org", security: .implicitTLS).port == 465)
    }

    @Test("a printed or dumped configuration never shows the password")
    func passwordRedacted() {
        let configuration = SMTPConfiguration(host: "h", from: "a@b.org", username: "u", password: "hunter2")
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in ["\(configuration)", String(reflecting: configuration), dumped] {
            #expect(!text.contains("hunter2"), "\(text)")
        }
    }
}
