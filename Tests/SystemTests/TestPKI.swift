import DevelopmentPKI
import Foundation
import NIOSSL
import ServiceKit
import ServiceTransport

/// A deployment CA with a certificate per service, written to a directory the processes read,
/// plus an outsider CA whose certificates the services must refuse.
struct TestPKI {
    let directory: URL
    let authority: CertificateAuthority
    let outsider: CertificateAuthority

    init() throws {
        directory = try TestEnvironment.temporaryDirectory("mfa-pki")
        authority = try CertificateAuthority(commonName: "test deployment CA")
        outsider = try CertificateAuthority(commonName: "someone else's CA")
        try write(try authority.certificatePEM, "ca.pem")
        for service in ServiceName.allCases {
            let issued = try authority.issue(commonName: service.rawValue, hosts: ["localhost", "127.0.0.1"])
            try write(issued.certificatePEM, "\(service.rawValue).pem")
            try write(issued.privateKeyPEM, "\(service.rawValue)-key.pem")
        }
    }

    private func write(_ text: String, _ name: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    /// Client TLS material presenting `identity`, issued by our CA or by the outsider.
    func client(as identity: String, fromOutsider: Bool = false) throws -> MutualTLS {
        let issuer = fromOutsider ? outsider : authority
        let issued = try issuer.issue(commonName: identity, hosts: ["localhost"])
        return try MutualTLS(
            certificatePEM: issued.certificatePEM, privateKeyPEM: issued.privateKeyPEM, caPEM: try authority.certificatePEM
        )
    }

    /// A client configuration that trusts our CA but presents no certificate.
    func anonymousClientConfiguration() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(try authority.certificatePEM.utf8)))
        return configuration
    }
}
