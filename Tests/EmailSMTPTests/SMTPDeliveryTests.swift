import EmailSMTP
import Foundation
import PluginKit
import TestSupport
import Testing

/// Against aiosmtpd in a child process: the client's commands, TLS and message meet an independent
/// implementation, and what arrived is read back by Python's email parser.
@Suite("Delivering over SMTP to a real server (aiosmtpd)", .serialized, .timeLimit(.minutes(2)))
struct SMTPDeliveryTests {
    static let account = (username: "mailer", password: "s3cret-Pa55word")
    static let body = "Hello Alice,\n\nyour verification code is 480213.\n.a line that starts with a dot\n...\nBye\n"
    static let email = EmailMessage(to: "alice@example.org", subject: "Your verification code", text: body)

    static func sender(
        _ server: SMTPTestServer, _ security: SMTPConfiguration.Security, trusting: Bool = true,
        username: String? = nil, password: String? = nil
    ) throws -> SMTPEmailSender {
        try SMTPEmailSender(
            configuration: SMTPConfiguration(
                host: "127.0.0.1", port: server.port, from: "noreply@mfa.example", username: username, password: password,
                security: security, trustRootsPath: trusting && security != .plain ? server.trustRootsPath : nil, timeout: .seconds(5)
            )
        )
    }

    static func lf(_ text: String) -> String { text.replacingOccurrences(of: "\r\n", with: "\n") }

    @Test("a plain send arrives with its To, Subject and body, a line starting with a dot arriving as written")
    func plainDelivery() async throws {
        try await SMTPTestServer.with { server in
            let sender = try Self.sender(server, .plain)
            #expect(sender.name == "smtp")
            try await sender.send(Self.email)
            let received = try server.received()
            try #require(received.count == 1, "\(server.log())")
            let message = received[0]
            #expect(message.mailFrom == "noreply@mfa.example")
            #expect(message.recipients == ["alice@example.org"])
            #expect(message.headers["To"] == "alice@example.org")
            #expect(message.headers["From"] == "noreply@mfa.example")
            #expect(message.headers["Subject"] == "Your verification code")
            #expect(Self.lf(message.body) == Self.body)
            // Sent as "..a line…" and "....": the server removed exactly the stuffed dot.
            #expect(message.raw.contains("\r\n.a line that starts with a dot\r\n...\r\n"))
            #expect(!message.overTLS)
        }
    }

    @Test("a non-ASCII subject and body arrive intact (RFC 2047 subject, quoted-printable body)")
    func nonASCIIDelivery() async throws {
        try await SMTPTestServer.with { server in
            let subject = "Ваш код подтверждения — 480213 ✅, gültig für 10 Minuten"
            let body = "Grüße!\nКод: 480213\n\(String(repeating: "ü", count: 100))\n.точка\n"
            try await Self.sender(server, .plain).send(EmailMessage(to: "bob@example.org", subject: subject, text: body))
            let message = try #require(try server.received().first, "\(server.log())")
            #expect(message.headers["Subject"] == subject)
            #expect(Self.lf(message.body) == body)
        }
    }

    @Test("STARTTLS then AUTH PLAIN delivers over TLS, trusting the test CA from the trust-roots file")
    func startTLSWithAuthentication() async throws {
        try await SMTPTestServer.with(.init(security: .starttls, account: Self.account)) { server in
            let sender = try Self.sender(server, .startTLS, username: Self.account.username, password: Self.account.password)
            try await sender.send(Self.email)
            let message = try #require(try server.received().first, "\(server.log())")
            #expect(message.overTLS && message.authenticated)
            #expect(Self.lf(message.body) == Self.body)
            #expect(server.authAttempts() == ["PLAIN mailer"])
        }
    }

    @Test("implicit TLS (SMTPS) with AUTH PLAIN delivers")
    func implicitTLS() async throws {
        try await SMTPTestServer.with(.init(security: .implicit, account: Self.account)) { server in
            let sender = try Self.sender(server, .implicitTLS, username: Self.account.username, password: Self.account.password)
            try await sender.send(Self.email)
            let message = try #require(try server.received().first, "\(server.log())")
            #expect(message.overTLS && message.authenticated)
            #expect(message.headers["Subject"] == "Your verification code")
        }
    }

    @Test("a wrong password fails at the AUTH stage with the code, the reason holding neither password nor body")
    func wrongPassword() async throws {
        try await SMTPTestServer.with(.init(security: .starttls, account: Self.account)) { server in
            let password = "wrong-Pa55word"
            let sender = try Self.sender(server, .startTLS, username: Self.account.username, password: password)
            let error = await #expect(throws: DeliveryFailed.self) { try await sender.send(Self.email) }
            let reason = error?.reason ?? ""
            #expect(reason.contains("AUTH") && reason.contains("535"), "\(reason)")
            #expect(!reason.contains(password) && !reason.contains(Data(password.utf8).base64EncodedString().prefix(8)))
            #expect(!reason.contains("480213"))
            let received = try server.received()
            #expect(received.isEmpty)
        }
    }

    @Test("a recipient the server refuses with 550 fails at the RCPT TO stage")
    func recipientRefused() async throws {
        try await SMTPTestServer.with(.init(rejectRecipients: true)) { server in
            let error = await #expect(throws: DeliveryFailed.self) { try await Self.sender(server, .plain).send(Self.email) }
            let reason = error?.reason ?? ""
            #expect(reason.contains("RCPT TO") && reason.contains("550"), "\(reason)")
            #expect(!reason.contains("480213"))
            let received = try server.received()
            #expect(received.isEmpty)
        }
    }

    @Test("credentials with security plain are refused before anything is sent, though the server offers AUTH")
    func credentialsWithoutTLSRefused() async throws {
        try await SMTPTestServer.with(.init(account: Self.account, authOverPlain: true)) { server in
            let sender = try Self.sender(server, .plain, username: Self.account.username, password: Self.account.password)
            let error = await #expect(throws: DeliveryFailed.self) { try await sender.send(Self.email) }
            #expect(error?.reason.contains("TLS") == true, "\(error?.reason ?? "")")
            #expect(server.authAttempts().isEmpty)
            let received = try server.received()
            #expect(received.isEmpty)
        }
    }

    @Test("STARTTLS configured but not offered by the server: refused rather than sent in the clear")
    func startTLSNotOffered() async throws {
        try await SMTPTestServer.with { server in
            let sender = try Self.sender(server, .startTLS, trusting: false)
            let error = await #expect(throws: DeliveryFailed.self) { try await sender.send(Self.email) }
            #expect(error?.reason.contains("STARTTLS") == true, "\(error?.reason ?? "")")
            let received = try server.received()
            #expect(received.isEmpty)
        }
    }

    @Test("a server certificate from a CA the configuration does not trust fails the handshake; credentials stay unsent")
    func untrustedCertificate() async throws {
        try await SMTPTestServer.with(.init(security: .starttls, account: Self.account)) { server in
            let sender = try Self.sender(
                server, .startTLS, trusting: false, username: Self.account.username, password: Self.account.password
            )
            let error = await #expect(throws: DeliveryFailed.self) { try await sender.send(Self.email) }
            #expect(error?.reason.contains("TLS") == true, "\(error?.reason ?? "")")
            #expect(server.authAttempts().isEmpty)
            let received = try server.received()
            #expect(received.isEmpty)
        }
    }

    @Test("a reply sent in the clear together with the 220 to STARTTLS is refused (response injection)")
    func startTLSResponseInjection() async throws {
        try await SMTPTestServer.with(.init(injectAfterSTARTTLS: true)) { server in
            let sender = try SMTPEmailSender(
                configuration: SMTPConfiguration(
                    host: "127.0.0.1", port: server.port, from: "noreply@mfa.example", username: Self.account.username,
                    password: Self.account.password, security: .startTLS, timeout: .seconds(5)
                )
            )
            let start = ContinuousClock.now
            let error = await #expect(throws: DeliveryFailed.self) { try await sender.send(Self.email) }
            #expect(error?.reason.contains("STARTTLS") == true, "\(error?.reason ?? "")")
            #expect(ContinuousClock.now - start < .seconds(4), "refused at once, not by the timeout")
        }
    }

    @Test("nothing listening: fails at connect, quickly")
    func connectionRefused() async throws {
        let configuration = SMTPConfiguration(
            host: "127.0.0.1", port: try LoopbackPort.free(), from: "noreply@mfa.example", security: .plain
        )
        let sender = try SMTPEmailSender(configuration: configuration)
        let start = ContinuousClock.now
        let error = await #expect(throws: DeliveryFailed.self) { try await sender.send(Self.email) }
        #expect(error?.reason.contains("connect") == true, "\(error?.reason ?? "")")
        #expect(ContinuousClock.now - start < .seconds(3))
    }

    @Test("a server that never greets: fails with a timeout at the greeting once the configured time is up")
    func silentServerTimesOut() async throws {
        let listener = try SilentListener()
        let sender = try SMTPEmailSender(
            configuration: SMTPConfiguration(
                host: "127.0.0.1", port: listener.port, from: "noreply@mfa.example", security: .plain, timeout: .seconds(1)
            )
        )
        let start = ContinuousClock.now
        let error = await #expect(throws: DeliveryFailed.self) { try await sender.send(Self.email) }
        let elapsed = ContinuousClock.now - start
        #expect(error?.reason.contains("greeting") == true && error?.reason.contains("timed out") == true, "\(error?.reason ?? "")")
        // Not before the configured time; the upper bound only says "does not hang": the whole suite
        // runs side by side with the system tests on two cores, where a wake-up can come seconds late.
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(10), "\(elapsed)")
        withExtendedLifetime(listener) {}
    }
}
