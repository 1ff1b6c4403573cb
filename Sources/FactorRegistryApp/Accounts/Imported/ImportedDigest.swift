import Crypto
import Foundation

/// The hash functions behind the imported algorithms (`MD5`, `SHA1`…, `HMAC_*`, `PBKDF_SHA1`,
/// `PBKDF2_SHA256`). MD5 and SHA-1 only ever check a password once, on its way to scrypt.
enum ImportedDigest: String, Sendable, CaseIterable {
    case md5, sha1, sha256, sha512

    func hash(_ data: some DataProtocol) -> Data {
        switch self {
        case .md5: Data(Insecure.MD5.hash(data: data))
        case .sha1: Data(Insecure.SHA1.hash(data: data))
        case .sha256: Data(SHA256.hash(data: data))
        case .sha512: Data(SHA512.hash(data: data))
        }
    }

    func mac(_ data: some DataProtocol, key: Data) -> Data {
        let key = SymmetricKey(data: key)
        return switch self {
        case .md5: Data(HMAC<Insecure.MD5>.authenticationCode(for: data, using: key))
        case .sha1: Data(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: key))
        case .sha256: Data(HMAC<SHA256>.authenticationCode(for: data, using: key))
        case .sha512: Data(HMAC<SHA512>.authenticationCode(for: data, using: key))
        }
    }

    /// Bytes of one output.
    var length: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }
}

/// Where the salt goes in the hashed input (`passwordHashOrder`).
enum SaltPlacement: String, Sendable {
    case saltFirst = "s"
    case passwordFirst = "p"

    func input(password: Data, salt: Data) -> Data {
        self == .saltFirst ? salt + password : password + salt
    }
}
