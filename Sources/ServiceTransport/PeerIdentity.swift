import SwiftASN1
import Synchronization
import X509

/// Reads the authenticated caller's identity: the common name of its verified TLS client certificate,
/// which must also carry that name as the URI subject alternative name
/// `urn:mfa-backend:service:<name>`. The handshake already required the
/// deployment CA; the URI is what no public CA issues, so a CA bundle configured by mistake as
/// `tls.ca` still makes nobody a peer. `mfa-dev-pki` writes it; a deployment's own PKI must too.
enum PeerIdentity {
    static let identityPrefix = "urn:mfa-backend:service:"

    /// The common name of a verified client certificate (its DER bytes), or `nil` when it names no
    /// service. `requireIdentity`: `tls.requireServiceIdentity`; off only while a deployment's own
    /// PKI is being reissued with the URI. The RPC listener asks once per connection
    /// (`RPCConnectionState`).
    ///
    /// The handshake already verified the certificate; only reading its subject is left, and the
    /// same few peer certificates arrive on every connection: their names are kept by their exact bytes.
    static func commonName(ofDER der: [UInt8], requireIdentity: Bool = true) -> String? {
        // What was accepted under one rule says nothing about the other: the rule is part of the key.
        let key = [requireIdentity ? 1 : 0] + der
        if let known = names.withLock({ $0[key] }) { return known }
        guard let parsed = try? Certificate(derEncoded: der) else { return nil }
        var name: String?
        for relativeName in parsed.subject {
            for attribute in relativeName where attribute.type == .RDNAttributeType.commonName {
                name = String(describing: attribute.value)
                break
            }
            if name != nil { break }
        }
        guard let name else { return nil }
        if requireIdentity {
            guard let alternatives = try? parsed.extensions.subjectAlternativeNames,
                alternatives.contains(.uniformResourceIdentifier(identityPrefix + name))
            else { return nil }
        }
        names.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[key] = name
        }
        return name
    }

    private static let names = Mutex<[[UInt8]: String]>([:])
}
