import NIOCore
import NIOSSL
import SwiftASN1
import X509

/// Reads the authenticated caller's identity: the common name of its verified TLS client certificate.
enum PeerIdentity {
    /// - Returns: the common name, or `nil` when the connection carries no verified certificate.
    static func commonName(on channel: any Channel) async -> String? {
        let connection = channel.parent ?? channel
        guard let certificate = try? await connection.nioSSL_peerCertificate().get(),
            let der = try? certificate.toDERBytes(),
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
