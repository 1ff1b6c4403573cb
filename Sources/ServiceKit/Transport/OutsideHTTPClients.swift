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
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        clients.withLock { $0.append(client) }
        return client
    }

    /// Shuts down every client made here (the host does at the end of a run; an in-process test at its end).
    public func shutdown() async {
        for client in clients.withLock({ $0 }) { try? await client.shutdown() }
    }
}
