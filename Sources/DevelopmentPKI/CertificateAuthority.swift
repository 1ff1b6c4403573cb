import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority for a deployment's service-to-service mutual TLS.
///
/// The local stack and the tests create one in-process (milliseconds, no openssl step); production
/// deployments bring their own CA and only point the services at the PEM files.
public struct CertificateAuthority: Sendable {
    public let certificate: Certificate
    let privateKey: P256.Signing.PrivateKey

    /// Creates a new self-signed CA valid for `validity` from one hour ago.
    public init(commonName: String, validity: TimeInterval = 825 * 86400) throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: now - 3600,
            notValidAfter: now + validity,
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(key)
        )
        privateKey = key
    }

    /// Loads a CA from PEM (to issue more certificates into an existing development PKI).
    public init(certificatePEM: String, privateKeyPEM: String) throws {
        certificate = try Certificate(pemEncoded: certificatePEM)
        privateKey = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
    }

    public var certificatePEM: String { get throws { try certificate.serializeAsPEM().pemString } }
    public var privateKeyPEM: String { privateKey.pemRepresentation }

    /// The URI subject alternative name that names a service of the deployment. Peers require it
    /// next to the common name (ServiceKit's `PeerIdentity`): no public CA issues a certificate for
    /// a `urn:` of ours, so a CA bundle configured by mistake cannot make anyone a peer.
    public static func serviceIdentity(_ name: String) -> String { "urn:mfa-backend:service:\(name)" }

    /// Issues a leaf certificate usable as both TLS server and TLS client.
    /// - Parameters:
    ///   - commonName: the identity peers authorise on (a service name such as `gateway`); the
    ///     certificate also carries it as ``serviceIdentity(_:)``.
    ///   - hosts: DNS names and IP addresses the certificate is valid for as a server.
    public func issue(commonName: String, hosts: [String], validity: TimeInterval = 825 * 86400) throws -> IssuedCertificate {
        let key = P256.Signing.PrivateKey()
        let now = Date()
        let names: [GeneralName] =
            hosts.map { host in
                if let address = IPv4Address(host) {
                    return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(address.bytes)))
                }
                return .dnsName(host)
            } + [.uniformResourceIdentifier(Self.serviceIdentity(commonName))]
        let leaf = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: now - 3600,
            notValidAfter: now + validity,
            issuer: certificate.subject,
            subject: try DistinguishedName { CommonName(commonName) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: .init(privateKey)
        )
        return IssuedCertificate(certificatePEM: try leaf.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation)
    }
}

/// A leaf certificate and its private key, both PEM.
public struct IssuedCertificate: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String
}

/// Dotted-quad IPv4 parsing for subject alternative names.
struct IPv4Address {
    let bytes: [UInt8]

    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard let byte = UInt8(part) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
    }
}
