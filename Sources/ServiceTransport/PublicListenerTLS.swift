import NIOSSL

/// TLS for a listener that the public reaches (the gateway's HTTPS port): the server presents its
/// certificate chain and asks for none, and ALPN offers HTTP/2 and HTTP/1.1.
public enum PublicListenerTLS {
    public static func serverConfiguration(certificateFile: String, privateKeyFile: String) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
            key = try NIOSSLPrivateKey(file: privateKeyFile, format: .pem)
        } catch {
            throw MissingPublicTLSFiles(certificateFile: certificateFile, privateKeyFile: privateKeyFile, underlying: "\(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)
        )
        configuration.certificateVerification = .none
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}

/// The HTTPS listener cannot start without its files; say which, never their content.
public struct MissingPublicTLSFiles: Error, CustomStringConvertible {
    let certificateFile: String
    let privateKeyFile: String
    let underlying: String

    public var description: String {
        "cannot load the public listener's TLS files (certificate \(certificateFile), key \(privateKeyFile)): \(underlying)"
    }
}
