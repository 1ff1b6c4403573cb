import Crypto
import Foundation
import ServiceKit
import _CryptoExtras

/// Firebase's modified scrypt (github.com/firebase/scrypt), this server's own password hash: a
/// Firebase project's exported hashes import as they are, and ours export into Firebase or
/// Identity Platform with the project's `hashConfig`. A hash there is
/// `signerKey ⊕ AES-256-CTR keystream(key = scrypt(password, salt ‖ separator, N = 2^memoryCost,
/// r = rounds, p = 1)[0..<32], IV = 0)`. What is stored is the keystream alone: it checks a password
/// the same way, and the project's signer key is needed only to hand a hash out (an export).
///
/// Stored form: `firebase-scrypt$<memoryCost>$<rounds>$<base64 salt ‖ separator>$<base64 keystream>`.
enum FirebaseScrypt {
    static let tag = "firebase-scrypt"
    /// This server's salt separator (Firebase projects' usual one, `Bw==`).
    static let separator = Data([0x07])
    /// Keystream bytes kept for this server's own hashes: the length of Firebase's signer keys.
    static let keystreamLength = 64
    static let memoryCosts = 1...20
    static let rounds = 1...64

    /// The keystream `password` gives; `nil` for parameters outside the limits.
    static func keystream(_ password: Data, salt: Data, memoryCost: Int, rounds: Int, length: Int) -> Data? {
        guard memoryCosts.contains(memoryCost), Self.rounds.contains(rounds), (1 << memoryCost) * rounds <= 1 << 19,
            (1...1024).contains(length),
            let derived = try? KDF.Scrypt.deriveKey(
                from: password, salt: salt, outputByteCount: 64, rounds: 1 << memoryCost, blockSize: rounds, parallelism: 1
            ),
            let stream = try? AES._CTR.encrypt(
                Data(count: length), using: SymmetricKey(data: derived.withUnsafeBytes { Data($0.prefix(32)) }),
                nonce: AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16))
            )
        else { return nil }
        return stream
    }

    static func stored(memoryCost: Int, rounds: Int, salt: Data, keystream: Data) -> String {
        "\(tag)$\(memoryCost)$\(rounds)$\(salt.base64EncodedString())$\(keystream.base64EncodedString())"
    }

    /// A stored form's parts.
    struct Parts {
        let memoryCost: Int
        let rounds: Int
        /// The salt with its separator.
        let salt: Data
        let keystream: Data
    }

    static func parts(_ stored: String) -> Parts? {
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0] == tag, let memoryCost = Int(fields[1]), let rounds = Int(fields[2]),
            let salt = Data(base64Encoded: String(fields[3])), let keystream = Data(base64Encoded: String(fields[4])),
            !keystream.isEmpty
        else { return nil }
        return Parts(memoryCost: memoryCost, rounds: rounds, salt: salt, keystream: keystream)
    }

    /// Whether `password` matches a stored form, in constant time; `false` for anything malformed.
    static func matches(_ password: String, stored: String) -> Bool {
        guard let parts = parts(stored),
            let computed = keystream(
                Data(password.utf8), salt: parts.salt, memoryCost: parts.memoryCost, rounds: parts.rounds, length: parts.keystream.count
            )
        else { return false }
        return AdminAuthenticator.constantTimeEquals(Array(computed), Array(parts.keystream))
    }
}
