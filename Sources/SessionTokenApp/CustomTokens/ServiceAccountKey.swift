import Foundation
import _CryptoExtras

/// The public half of a Google service-account key file (the JSON an app team downloads and gives
/// its Admin SDK): custom tokens signed with it carry `iss` = `sub` = its `client_email`. Only the
/// public key is kept in memory; the private key is read once, to derive it.
struct ServiceAccountKey: Sendable {
    let clientEmail: String
    let publicKey: _RSA.Signing.PublicKey
    /// The project the key belongs to (`project_id`): its custom tokens sign in there and nowhere
    /// else (issue 39, L-4). A file without one (a public half written by hand) must name it.
    let projectId: String

    struct Unreadable: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "service-account key \(path): \(reason)" }
    }

    init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw Unreadable(path: path, reason: "cannot read") }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let email = object["client_email"] as? String, !email.isEmpty
        else { throw Unreadable(path: path, reason: "not a service-account key (no client_email)") }
        guard let project = object["project_id"] as? String, !project.isEmpty else {
            throw Unreadable(path: path, reason: "no project_id: a key signs custom tokens for its own project only")
        }
        projectId = project
        if let privateKey = object["private_key"] as? String {
            do {
                publicKey = try _RSA.Signing.PrivateKey(pemRepresentation: privateKey).publicKey
            } catch {
                throw Unreadable(path: path, reason: "private_key is not an RSA key in PEM")
            }
        } else if let publicPEM = object["public_key"] as? String {
            // A file holding only the public half is enough (and better: nothing secret on this host).
            do {
                publicKey = try _RSA.Signing.PublicKey(pemRepresentation: publicPEM)
            } catch {
                throw Unreadable(path: path, reason: "public_key is not an RSA key in PEM")
            }
        } else {
            throw Unreadable(path: path, reason: "neither private_key nor public_key")
        }
        clientEmail = email
    }
}
