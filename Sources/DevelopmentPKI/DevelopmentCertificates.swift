import Foundation
import X509

/// Writes the development PKI of the local stack: `ca.pem`, `ca-key.pem`, `<service>.pem` /
/// `<service>-key.pem` for each service, and the master keys of session-token, challenge-issuer and factor-registry. Idempotent: files that exist are kept, so a second
/// `up` reuses the certificates and a running stack is never re-keyed under its feet.
public enum DevelopmentCertificates {
    public static let defaultServices = ["gateway", "factor-registry", "challenge-issuer", "session-token"]

    /// - Returns: the files written this time (empty when everything existed).
    @discardableResult
    public static func ensure(
        in directory: URL, services: [String] = defaultServices, extraHosts: [String] = []
    ) throws -> [String] {
        let files = FileManager.default
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        let caURL = directory.appendingPathComponent("ca.pem")
        let caKeyURL = directory.appendingPathComponent("ca-key.pem")
        var written: [String] = []
        let authority: CertificateAuthority
        if files.fileExists(atPath: caURL.path), files.fileExists(atPath: caKeyURL.path) {
            authority = try CertificateAuthority(
                certificatePEM: String(contentsOf: caURL, encoding: .utf8),
                privateKeyPEM: String(contentsOf: caKeyURL, encoding: .utf8)
            )
        } else {
            // A name of its own per deployment: a machine that trusts several deployments' CAs (an
            // operator's, reaching each admin listener) finds each certificate's issuer by name, and
            // two CAs of one name would shadow each other.
            let id = (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            authority = try CertificateAuthority(commonName: "mfa-backend development CA \(id)")
            try write(try authority.certificatePEM, to: caURL, secret: false)
            try write(authority.privateKeyPEM, to: caKeyURL, secret: true)
            written += ["ca.pem", "ca-key.pem"]
        }
        for service in services {
            let certURL = directory.appendingPathComponent("\(service).pem")
            let keyURL = directory.appendingPathComponent("\(service)-key.pem")
            if files.fileExists(atPath: certURL.path), files.fileExists(atPath: keyURL.path),
                try Self.namesServiceIdentity(certURL, service)
            {
                continue
            }
            // The service name is also its host name inside docker-compose's network.
            let issued = try authority.issue(commonName: service, hosts: ["localhost", "127.0.0.1", service] + extraHosts)
            try write(issued.certificatePEM, to: certURL, secret: false)
            try write(issued.privateKeyPEM, to: keyURL, secret: true)
            written += ["\(service).pem", "\(service)-key.pem"]
        }
        // The master keys of the services that keep secrets at rest: session-token's signing keys,
        // challenge-issuer's TOTP secrets, factor-registry's imported HMAC keys (development only: production configures
        // secrets.masterKey or secrets.masterKeyFile itself).
        for name in ["session-token-master.key", "challenge-issuer-master.key", "factor-registry-master.key"] {
            let masterKeyURL = directory.appendingPathComponent(name)
            if !files.fileExists(atPath: masterKeyURL.path) {
                var generator = SystemRandomNumberGenerator()
                let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
                try write(Data(bytes).base64EncodedString() + "\n", to: masterKeyURL, secret: true)
                written.append(name)
            }
        }
        return written
    }

    /// Whether the certificate carries the service's identity URI: one from an earlier version of
    /// this tool does not, and is issued again (peers now require it).
    static func namesServiceIdentity(_ url: URL, _ service: String) throws -> Bool {
        let certificate = try Certificate(pemEncoded: String(contentsOf: url, encoding: .utf8))
        let names = try certificate.extensions.subjectAlternativeNames ?? SubjectAlternativeNames([])
        return names.contains(.uniformResourceIdentifier(CertificateAuthority.serviceIdentity(service)))
    }

    private static func write(_ text: String, to url: URL, secret: Bool) throws {
        try Data(text.utf8).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: secret ? 0o600 : 0o644], ofItemAtPath: url.path)
    }
}
