import NIOCore
import NIOSSL
import SwiftASN1
import X509

/// Reads the authenticated caller's identity: the common name of its verified TLS client certificate.
enum PeerIdentity {
    /// - Returns: the common name, or `nil` when the connection carries no verified certificate.
    static func commonName(on channel: any Channel) async -> String? {
        // HTTP/1.1: the request's channel is the TLS connection itself (its parent is the listening
        // socket). HTTP/2: the request's channel is a stream, whose parent is the TLS connection.
        var certificate = try? await channel.nioSSL_peerCertificate().get()
        if certificate == nil, let parent = channel.parent {
            certificate = try? await parent.nioSSL_peerCertificate().get()
        }
        guard let certificate, let der = try? certificate.toDERBytes(),
            let parsed = try? Certificate(derEncoded: der)
        else { return nil }
        for relativeName in parsed.subject {
            for attribute in relativeName where attribute.type == .RDNAttributeType.commonName {
                return String(describing: attribute.value)
            }
        }
        return nil
    }
}
