import NIOCore
import NIOSSL

/// What a connection needs to become TLS: one context per sender (made once, so a bad trust-roots
/// file shows at startup), and the name the server's certificate must carry.
struct TLSClient: Sendable {
    let context: NIOSSLContext
    /// The host for SNI and certificate checks; nil for an IP address, which NIOSSL then checks
    /// against the certificate's IP addresses using the peer's address.
    let serverHostname: String?

    init(_ configuration: SMTPConfiguration) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let path = configuration.trustRootsPath { tls.additionalTrustRoots = [.file(path)] }
        // Closing waits for the server's close_notify at most this long (NIOSSL's default is 5 s),
        // which would otherwise stretch the delivery timeout.
        tls.shutdownTimeout = .seconds(2)
        do {
            context = try NIOSSLContext(configuration: tls)
        } catch {
            let roots = configuration.trustRootsPath ?? "system only"
            throw SMTPConfiguration.Invalid("cannot make a TLS context (trust roots: \(roots)): \(error)")
        }
        let isIPAddress = (try? SocketAddress(ipAddress: configuration.host, port: 0)) != nil
        serverHostname = isIPAddress ? nil : configuration.host
    }

    /// A handler for one connection; created on the channel's event loop (it is not Sendable).
    func makeHandler() throws -> NIOSSLClientHandler {
        try NIOSSLClientHandler(context: context, serverHostname: serverHostname)
    }
}
