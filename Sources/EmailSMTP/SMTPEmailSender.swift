import NIOCore
import NIOPosix
import PluginKit

/// Delivers each email to one SMTP relay over a connection of its own (the volume is a few
/// verification emails, so there is no pool to keep healthy).
///
/// Everything that can be refused without the server is refused before connecting: header or command
/// injection in an address or the subject, and credentials with `security: .plain`. One deadline
/// (``SMTPConfiguration/timeout``) covers connecting through QUIT; the channel is closed on every path.
public struct SMTPEmailSender: EmailSender {
    public let name = "smtp"
    public let configuration: SMTPConfiguration
    private let tls: TLSClient?
    private let eventLoopGroup: any EventLoopGroup

    /// Throws ``SMTPConfiguration/Invalid`` when no TLS context can be made (an unreadable trust-roots
    /// file), so a broken deployment fails at startup rather than at the first email.
    public init(
        configuration: SMTPConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.tls = configuration.security == .plain ? nil : try TLSClient(configuration)
    }

    public func send(_ email: EmailMessage) async throws {
        let message = try SMTPMessage(email, from: configuration.from)
        try checkConfiguration()

        let timeout = TimeAmount(configuration.timeout)
        let deadline = NIODeadline.now() + timeout
        let channel = try await connect(timeout: timeout)
        // The deadline is kept by the event loop: closing the channel ends whatever the conversation
        // is waiting for (a reply, a write, the TLS handshake), and it reports the timeout.
        let closer = channel.channel
        let timer = closer.eventLoop.scheduleTask(deadline: deadline) { closer.close(promise: nil) }
        defer { timer.cancel() }
        try await channel.executeThenClose { inbound, outbound in
            var conversation = SMTPConversation(
                configuration: configuration, tls: tls, channel: closer, deadline: deadline,
                inbound: inbound, outbound: outbound
            )
            try await conversation.deliver(message)
        }
    }

    /// What the configuration must satisfy before anything goes on the wire.
    private func checkConfiguration() throws {
        if let domain = configuration.ehloDomain,
            domain.isEmpty || domain.unicodeScalars.contains(where: { MailAddress.isControl($0) || $0 == " " })
        {
            throw DeliveryFailed("SMTP EHLO: the configured EHLO domain is empty or contains a space or control character")
        }
        guard let username = configuration.username else { return }
        guard configuration.security != .plain else {
            throw DeliveryFailed("SMTP AUTH: refusing to send credentials over a connection without TLS (security is plain)")
        }
        guard let password = configuration.password else {
            throw DeliveryFailed("SMTP AUTH: a username is configured without a password")
        }
        // NUL separates the fields of AUTH PLAIN (RFC 4616); one inside a field would shift them.
        guard !username.utf8.contains(0), !password.utf8.contains(0) else {
            throw DeliveryFailed("SMTP AUTH: the username or password contains a NUL character")
        }
    }

    /// A TCP connection (TLS from the start for `.implicitTLS`) with the reply decoder in place.
    private func connect(timeout: TimeAmount) async throws -> NIOAsyncChannel<SMTPReply, ByteBuffer> {
        let relay = "\(configuration.host):\(configuration.port)"
        guard let bootstrap = ClientBootstrap(validatingGroup: eventLoopGroup) else {
            throw DeliveryFailed("SMTP connect: the event loop group is not a NIOPosix one")
        }
        let tls = configuration.security == .implicitTLS ? tls : nil
        do {
            return
                try await bootstrap
                .connectTimeout(timeout)
                .connect(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls { try channel.pipeline.syncOperations.addHandler(tls.makeHandler()) }
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                        return try NIOAsyncChannel<SMTPReply, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as NIOConnectionError {
            // The per-address failures say what happened ("Connection refused"); the wrapper says little.
            let dnsErrors = [error.dnsAError, error.dnsAAAAError].compactMap { $0.map { "\($0)" } }
            let causes = error.connectionErrors.map { "\($0.error)" } + dnsErrors
            throw DeliveryFailed("SMTP connect to \(relay) failed: \(causes.isEmpty ? "\(error)" : causes.joined(separator: "; "))")
        } catch {
            throw DeliveryFailed("SMTP connect to \(relay) failed: \(error)")
        }
    }
}
