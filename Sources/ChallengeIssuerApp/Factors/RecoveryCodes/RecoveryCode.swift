import Crypto
import Foundation

/// One recovery code (docs/mfa-policy.md): 16 symbols of Crockford's base32 (80 random bits, well
/// above the 60 asked for), shown as `XXXX-XXXX-XXXX-XXXX`. What a user types is normalised before
/// it is hashed: case ignored, spaces and dashes dropped, and the letters Crockford reads as digits
/// (`O` → 0, `I` and `L` → 1) read as them. Stored only as a keyed hash (HMAC-SHA-256 under a key
/// derived from challenge-issuer's master key) bound to its set's enrollment id, so the hash of one
/// user's code says nothing about another's and a copied table cannot be searched offline.
enum RecoveryCode {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    static let symbols = 16
    static let setSize = 10

    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<symbols).map { _ in alphabet[Int(generator.next(upperBound: UInt8(alphabet.count)))] }
        return stride(from: 0, to: symbols, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// The canonical symbols of what a user typed, or `nil` when it cannot be a code (wrong length or symbols).
    static func normalised(_ typed: String) -> String? {
        guard typed.utf8.count <= 64 else { return nil }
        var result = ""
        for character in typed.uppercased() {
            switch character {
            case " ", "-", "\t": continue
            case "O": result.append("0")
            case "I", "L": result.append("1")
            default:
                guard alphabet.contains(character) else { return nil }
                result.append(character)
            }
        }
        return result.count == symbols ? result : nil
    }

    static func hash(_ normalised: String, enrollmentId: String, key: SymmetricKey) -> Data {
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: Data(enrollmentId.utf8))
        mac.update(data: [0])
        mac.update(data: Data(normalised.utf8))
        return Data(mac.finalize())
    }

    static let keyPurpose = "mfa-backend recovery code hashes v1"
}
