import AsyncHTTPClient
import NIOSSL
import Synchronization

/// HTTP clients for services outside the deployment (an SMS provider, reCAPTCHA, Play Integrity):
/// they trust the system's store of public CAs, as any client of a public endpoint does, plus a
/// plugin's own extra roots when it names a PEM file (a private endpoint, or a test's local CA).
/// They present no certificate and never trust the deployment CA: that one vouches for our peers
/// only (the peers' client, ``ServiceHost/httpClient``, trusts nothing else).
///
/// Every client made here is shut down when the service stops.
public final class OutsideHTTPClients: Sendable {
    private let clients = Mutex<[HTTPClient]>([])

    public init() {}

    /// A client trusting the system store and the certificates in `extraTrustRootsFile`, if set.
    public func client(extraTrustRootsFile: String?) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let file = extraTrustRootsFile, !file.isEmpty {
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
        }
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        configuration.redirectConfiguration = Self.redirects
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        clients.withLock { $0.append(client) }
        return client
    }

    /// No outside call follows a redirect (issue 57, F-5): AsyncHTTPClient follows five by default,
    /// and the checks a caller makes of its URL (https only, a public address for a blocking
    /// function) hold for the first hop only, so a 307 sent an event token over plain HTTP to
    /// loopback. A redirect is answered to the caller as the 3xx it is, which each caller refuses as
    /// any unexpected status. No client of ours needs one.
    public static let redirects = HTTPClient.Configuration.RedirectConfiguration.disallow

    /// Shuts down every client made here (the host does at the end of a run; an in-process test at its end).
    public func shutdown() async {
        for client in clients.withLock({ $0 }) { try? await client.shutdown() }
    }
}
