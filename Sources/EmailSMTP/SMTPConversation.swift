import Foundation
import NIOCore
import NIOSSL
import PluginKit

/// One SMTP dialogue on a connected channel (RFC 5321 3.3, 4.3.2): greeting, EHLO, STARTTLS and EHLO
/// again when configured, AUTH PLAIN when there is an account, MAIL FROM, RCPT TO, DATA, QUIT.
///
/// Each command waits for its reply and any code but the expected ones ends the delivery with a
/// ``DeliveryFailed`` naming the stage and the code. The server's text is added only where it cannot
/// echo a secret: never after AUTH (some servers repeat the rejected credentials) or the message.
struct SMTPConversation {
    let configuration: SMTPConfiguration
    let tls: TLSClient?
    let channel: any Channel
    /// When the sender closes the channel; an interruption after it is reported as a timeout.
    let deadline: NIODeadline
    var replies: NIOAsyncChannelInboundStream<SMTPReply>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    /// True once TLS is in the pipeline; from then on every reply must have come through it.
    var secured: Bool
    /// The step under way, for error reasons.
    private var stage = "greeting"

    init(
        configuration: SMTPConfiguration, tls: TLSClient?, channel: any Channel, deadline: NIODeadline,
        inbound: NIOAsyncChannelInboundStream<SMTPReply>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) {
        self.configuration = configuration
        self.tls = tls
        self.channel = channel
        self.deadline = deadline
        self.replies = inbound.makeAsyncIterator()
        self.outbound = outbound
        self.secured = configuration.security == .implicitTLS
    }

    mutating func deliver(_ message: SMTPMessage) async throws {
        try await expectReply([220])
        var capabilities = try await hello(stage: "EHLO")
        if configuration.security == .startTLS {
            stage = "STARTTLS"
            // No fallback to plaintext: a server (or a man in the middle) that hides STARTTLS is refused.
            guard capabilities.keywords.contains("STARTTLS") else { throw failure("the server does not offer STARTTLS") }
            try await command("STARTTLS", stage: "STARTTLS", expecting: [220])
            try await startTLS()
            // RFC 3207 4.2: what the server said before TLS is forgotten and asked again. The handshake
            // runs before this reply can arrive, so its failures are reported at this stage.
            capabilities = try await hello(stage: "EHLO after STARTTLS")
        }
        if let username = configuration.username {
            try await authenticate(username: username, capabilities: capabilities)
        }
        try await command("MAIL FROM:<\(message.sender)>", stage: "MAIL FROM", expecting: [250])
        try await command("RCPT TO:<\(message.recipient)>", stage: "RCPT TO", expecting: [250, 251])
        try await command("DATA", stage: "DATA", expecting: [354])
        stage = "end of data"
        try await write(message.data)
        try await expectReply([250], showText: false)
        // Delivered: the server has taken responsibility for the message; how QUIT goes changes nothing.
        _ = try? await command("QUIT", stage: "QUIT", expecting: [221])
    }

    // MARK: steps

    private mutating func hello(stage: String) async throws -> Capabilities {
        let domain = configuration.ehloDomain ?? MailAddress.domain(of: configuration.from)
        let reply = try await command("EHLO \(domain)", stage: stage, expecting: [250])
        return Capabilities(reply)
    }

    /// Puts TLS in front of the line decoder. Bytes from the server from here on are decrypted first.
    private mutating func startTLS() async throws {
        guard let tls else { throw failure("no TLS context") }
        stage = "TLS handshake"
        let channel = channel
        do {
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(tls.makeHandler(), position: .first)
            }.get()
        } catch {
            throw interrupted(by: error)
        }
        secured = true
    }

    /// AUTH PLAIN with the credentials as the initial response (RFC 4954, RFC 4616).
    private mutating func authenticate(username: String, capabilities: Capabilities) async throws {
        stage = "AUTH"
        // Checked before the connection too; here again so no path sends credentials in the clear.
        guard secured else { throw failure("refusing to send credentials over a connection without TLS") }
        guard capabilities.authMechanisms.contains("PLAIN") else { throw failure("the server does not offer AUTH PLAIN") }
        let credentials = Data(([0] + Array(username.utf8) + [0] + Array((configuration.password ?? "").utf8)))
        try await command("AUTH PLAIN \(credentials.base64EncodedString())", stage: "AUTH", expecting: [235], showText: false)
    }

    // MARK: commands and replies

    @discardableResult
    private mutating func command(
        _ line: String, stage: String, expecting codes: Set<Int>, showText: Bool = true
    ) async throws -> SMTPReply {
        self.stage = stage
        try await write(line + "\r\n")
        return try await expectReply(codes, showText: showText)
    }

    @discardableResult
    private mutating func expectReply(_ codes: Set<Int>, showText: Bool = true) async throws -> SMTPReply {
        let reply: SMTPReply?
        do {
            reply = try await replies.next()
        } catch {
            throw interrupted(by: error)
        }
        guard let reply else { throw interrupted(by: nil) }
        if secured, !reply.overTLS {
            throw failure("a reply arrived outside TLS after the handshake (STARTTLS response injection)")
        }
        guard codes.contains(reply.code) else {
            throw failure("unexpected reply \(reply.code)\(showText ? reply.summary : "")")
        }
        return reply
    }

    private func write(_ text: String) async throws {
        do {
            try await outbound.write(ByteBuffer(string: text))
        } catch {
            throw interrupted(by: error)
        }
    }

    // MARK: failures

    private func failure(_ detail: String) -> DeliveryFailed {
        DeliveryFailed("SMTP \(stage): \(detail)")
    }

    /// The connection ended or failed while waiting: the deadline closed it, the task was cancelled,
    /// TLS failed, the server broke the protocol or hung up.
    private func interrupted(by error: (any Error)?) -> DeliveryFailed {
        if NIODeadline.now() >= deadline { return failure("timed out after \(configuration.timeout)") }
        if Task.isCancelled { return failure("cancelled") }
        switch error {
        case nil: return failure("connection closed by the server")
        case let error? where error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError:
            return failure("TLS failed: \(error)")
        case let error?: return failure("\(error)")
        }
    }
}
