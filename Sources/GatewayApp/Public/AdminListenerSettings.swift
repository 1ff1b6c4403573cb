import Configuration
import ServiceKit

/// The admin listener (`admin.listener.*`): when its port is set, admin credentials are accepted
/// there only, and the public listeners answer one as they answer any unknown bearer token (401).
/// A deployment keeps it on a private network, so a leaked admin token is of no use from the
/// internet (issue 40, L-5). It serves the same API over TLS (HTTP/2 and HTTP/1.1) with the
/// gateway's internal identity unless a certificate is configured: its callers are operators and
/// back ends that can trust the deployment's own CA.
struct AdminListenerSettings: Sendable {
    let host: String
    let port: Int
    let certificateFile: String
    let privateKeyFile: String

    init?(_ host: ServiceHost) throws {
        let reader = host.settings.reader
        let port = reader.int(forKey: "admin.listener.port", default: 0)
        guard port > 0 else { return nil }
        self.port = port
        self.host = reader.string(forKey: "admin.listener.host", default: "127.0.0.1")
        try host.settings.requireLoopbackInDevelopment(self.host, key: "admin.listener.host")
        certificateFile = reader.string(forKey: "admin.listener.certificate", default: host.settings.tls.certificateFile)
        privateKeyFile = reader.string(forKey: "admin.listener.privateKey", default: host.settings.tls.privateKeyFile)
    }
}
