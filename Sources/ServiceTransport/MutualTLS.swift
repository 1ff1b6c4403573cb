import NIOSSL

/// TLS configurations for service-to-service traffic: both sides present a certificate from the
/// deployment CA and trust nothing else.
public struct MutualTLS: Sendable {
    public let certificateChain: [NIOSSLCertificate]
    public let privateKey: NIOSSLPrivateKey
    public let trustRoots: [NIOSSLCertificate]

    public init(files: TLSFiles) throws {
        do {
            certificateChain = try NIOSSLCertificate.fromPEMFile(files.certificateFile)
            privateKey = try NIOSSLPrivateKey(file: files.privateKeyFile, format: .pem)
            trustRoots = try NIOSSLCertificate.fromPEMFile(files.caFile)
        } catch {
            throw MissingTLSFiles(files: files, underlying: "\(error)")
        }
    }

    public init(certificatePEM: String, privateKeyPEM: String, caPEM: String) throws {
        certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8))
        privateKey = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        trustRoots = try NIOSSLCertificate.fromPEMBytes(Array(caPEM.utf8))
    }

    /// Server side: a client certificate is required and must chain to the deployment CA. A client
    /// without one, or with one from another CA, fails the handshake before any HTTP is read.
    public var serverConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificateChain.map { .certificate($0) },
            privateKey: .privateKey(privateKey)
        )
        configuration.trustRoots = .certificates(trustRoots)
        // On a server this means: require a client certificate and verify its chain.
        configuration.certificateVerification = .noHostnameVerification
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }

    /// Client side: presents our certificate, trusts only the deployment CA, checks the host name.
    public var clientConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(trustRoots)
        configuration.certificateChain = certificateChain.map { .certificate($0) }
        configuration.privateKey = .privateKey(privateKey)
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}

/// The service cannot start without its certificates; say which files, never their content.
public struct MissingTLSFiles: Error, CustomStringConvertible {
    let files: TLSFiles
    let underlying: String

    public var description: String {
        """
        cannot load TLS files (ca \(files.caFile), certificate \(files.certificateFile), key \(files.privateKeyFile)): \
        \(underlying). Run `mfa-dev-pki <directory>` for development certificates, or set tls.* to your CA's files.
        """
    }
}
