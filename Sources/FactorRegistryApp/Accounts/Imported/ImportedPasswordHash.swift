import Crypto
import Foundation
import HummingbirdBcrypt
import ServiceKit
import _CryptoExtras

/// A password hash kept in an imported algorithm until the user's first sign-in, which replaces it
/// with the project's own scrypt hash (`AccountService.verifyPassword`). Stored forms, `$`-separated,
/// binary fields in base64:
/// - `firebase-scrypt$…` (``FirebaseScrypt``, this server's own form too)
/// - `bcrypt$<the $2a$… string>`
/// - `pbkdf2-<sha1|sha256>$<rounds>$<salt>$<key>`
/// - `hmac-<md5|sha1|sha256|sha512>$<s|p>$<sealed key>$<salt>$<scrypt$… of the MAC>`
/// - `digest-<md5|sha1|sha256|sha512>$<rounds>$<s|p>$<salt>$<scrypt$… of the digest>`
/// (`s`: salt first, `p`: password first). Our own `scrypt$…` form is ``PasswordHasher``'s.
enum ImportedPasswordHash {
    /// The associated data an imported HMAC key is sealed under.
    static let hmacKeyID = "imported-hmac-key"

    /// Whether `password` matches `stored`, compared in constant time; `false` for anything malformed.
    /// Runs on the blocking pool (the caller's ``HashingQueue``): every form costs a KDF or a scrypt.
    static func matches(_ password: String, stored: String, sealer: SecretSealer, inner: PasswordHasher) -> Bool {
        let parts = stored.split(separator: "$", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
        let secret = Data(password.utf8)
        switch parts[0] {
        case FirebaseScrypt.tag:
            return FirebaseScrypt.matches(password, stored: stored)
        case "bcrypt":
            guard parts.count == 2, let hash = Data(base64Encoded: parts[1]), let text = String(data: hash, encoding: .ascii) else {
                return false
            }
            return Bcrypt.verify(password, hash: text)
        case "pbkdf2-sha1", "pbkdf2-sha256":
            guard parts.count == 4, let rounds = Int(parts[1]), ImportedHashScheme.pbkdf2Rounds.contains(rounds),
                let salt = Data(base64Encoded: parts[2]), let expected = Data(base64Encoded: parts[3]), (16...512).contains(expected.count),
                let key = try? KDF.Insecure.PBKDF2.deriveKey(
                    from: secret, salt: salt, using: parts[0] == "pbkdf2-sha1" ? .insecureSHA1 : .sha256,
                    outputByteCount: expected.count, unsafeUncheckedRounds: rounds
                )
            else { return false }
            return AdminAuthenticator.constantTimeEquals(key.withUnsafeBytes { Array($0) }, Array(expected))
        case let tag where tag.hasPrefix("hmac-"):
            guard parts.count == 5, let digest = ImportedDigest(rawValue: String(tag.dropFirst(5))),
                let placement = SaltPlacement(rawValue: parts[1]), let sealed = Data(base64Encoded: parts[2]),
                let key = try? sealer.open(sealed, keyID: hmacKeyID), let salt = Data(base64Encoded: parts[3])
            else { return false }
            let mac = digest.mac(placement.input(password: secret, salt: salt), key: key)
            return inner.verifyBlocking(mac.base64EncodedString(), against: parts[4])
        case let tag where tag.hasPrefix("digest-"):
            guard parts.count == 5, let digest = ImportedDigest(rawValue: String(tag.dropFirst(7))), let rounds = Int(parts[1]),
                (digest == .md5 ? ImportedHashScheme.md5Rounds : ImportedHashScheme.digestRounds).contains(rounds),
                let placement = SaltPlacement(rawValue: parts[2]), let salt = Data(base64Encoded: parts[3])
            else { return false }
            let computed = Self.digest(digest, rounds: rounds, placement: placement, password: secret, salt: salt)
            return inner.verifyBlocking(computed.base64EncodedString(), against: parts[4])
        default:
            return false
        }
    }

    /// What the fast-digest algorithms compare with `passwordHash` (see ``ImportedHashScheme``).
    static func digest(_ digest: ImportedDigest, rounds: Int, placement: SaltPlacement, password: Data, salt: Data) -> Data {
        var value = digest.hash(placement.input(password: password, salt: salt))
        if digest == .md5 {
            for _ in 0..<rounds { value = digest.hash(value + password) }
            return Data(value.map { String(format: "%02x", $0) }.joined().utf8)
        }
        for _ in 1..<max(rounds, 1) { value = digest.hash(value) }
        return value
    }
}
