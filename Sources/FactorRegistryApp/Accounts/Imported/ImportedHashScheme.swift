import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// One `accounts:batchCreate` request's `hashAlgorithm` and its parameters (v1
/// `UploadAccountRequest`, as Identity Platform reads them), checked once for the request; then,
/// per user, the stored form of the user's hash (``ImportedPasswordHash``).
///
/// What each algorithm computes from the password (UTF-8) and the user's salt, and compares with
/// `passwordHash`:
/// - `SCRYPT` (Firebase's): scrypt(password, salt ‖ saltSeparator, N = 2^memoryCost, r = rounds,
///   p = 1, 64 bytes); AES-256-CTR under its first 32 bytes, zero IV, applied to `signerKey`.
/// - `STANDARD_SCRYPT`: scrypt(password, salt, N = cpuMemCost, r = blockSize, p = parallelization, dkLen).
/// - `BCRYPT`: `passwordHash` is the whole `$2a$…` string; the salt is inside it.
/// - `PBKDF_SHA1`, `PBKDF2_SHA256`: PBKDF2(password, salt, rounds iterations), as long as `passwordHash`.
/// - `HMAC_MD5`/`SHA1`/`SHA256`/`SHA512`: HMAC(signerKey, password ‖ salt), or salt ‖ password
///   with `passwordHashOrder: SALT_AND_PASSWORD`.
/// - `SHA1`/`SHA256`/`SHA512`: H(salt ‖ password) (or password ‖ salt), then H of the digest until
///   H has run `rounds` times (1–8192).
/// - `MD5`: x = MD5(salt ‖ password), then `rounds` times (0–8192) x = MD5(x ‖ password); the hash
///   is x in lower-case hex.
/// Ranges as Identity Platform's: SCRYPT rounds 1–8 and memoryCost 1–14; PBKDF rounds 1–120,000.
/// Beyond them, what one check may cost is bounded (``ImportedHashCost``): bcrypt cost 12 at most,
/// per user; STANDARD_SCRYPT's N·r·p at most 2^20.
enum ImportedHashScheme: Sendable {
    case standardScrypt(rounds: Int, blockSize: Int, parallelism: Int, keyLength: Int)
    case firebaseScrypt(signerKey: Data, saltSeparator: Data, rounds: Int, memoryCost: Int)
    case bcrypt
    case pbkdf2(ImportedDigest, rounds: Int)
    case hmac(ImportedDigest, key: Data, placement: SaltPlacement)
    case digest(ImportedDigest, rounds: Int, placement: SaltPlacement)

    static let pbkdf2Rounds = 1...120_000
    static let digestRounds = 1...8192
    static let md5Rounds = 0...8192

    init(_ parameters: PasswordHashParameters) throws {
        let algorithm = parameters.algorithm
        func parameter(_ detail: String) -> RPCError { AccountService.rejected(.invalidHashParameter, detail: "\(algorithm): \(detail)") }
        func rounds(_ range: ClosedRange<Int>, default fallback: Int? = nil) throws -> Int {
            guard let rounds = parameters.rounds ?? fallback, range.contains(rounds) else {
                throw AccountService.rejected(
                    .invalidHashRounds, detail: "\(algorithm) takes rounds from \(range.lowerBound) to \(range.upperBound)")
            }
            return rounds
        }
        func key() throws -> Data {
            guard let text = parameters.signerKey, let key = AccountImporter.base64(text), !key.isEmpty, key.count <= 1024 else {
                throw parameter("signerKey (base64, 1 to 1024 bytes) is required")
            }
            return key
        }
        func placement(default fallback: SaltPlacement) throws -> SaltPlacement {
            switch parameters.passwordHashOrder {
            case nil, "UNSPECIFIED_ORDER": return fallback
            case "SALT_AND_PASSWORD": return .saltFirst
            case "PASSWORD_AND_SALT": return .passwordFirst
            default: throw parameter("passwordHashOrder must be SALT_AND_PASSWORD or PASSWORD_AND_SALT")
            }
        }
        switch algorithm {
        case "SCRYPT":
            let signerKey = try key()
            guard let memoryCost = parameters.memoryCost, (1...14).contains(memoryCost) else {
                throw parameter("memoryCost must be 1 to 14")
            }
            let separator = try parameters.saltSeparator.map { text in
                guard let bytes = AccountImporter.base64(text), bytes.count <= 64 else { throw parameter("saltSeparator is not base64") }
                return bytes
            }
            self = .firebaseScrypt(
                signerKey: signerKey, saltSeparator: separator ?? Data(), rounds: try rounds(1...8), memoryCost: memoryCost
            )
        case "STANDARD_SCRYPT":
            let keyLength = parameters.dkLen ?? 32
            guard let rounds = parameters.cpuMemCost, let blockSize = parameters.blockSize, let parallelism = parameters.parallelization,
                PasswordHasher.acceptable(rounds: rounds, blockSize: blockSize, parallelism: parallelism, keyLength: keyLength),
                rounds * blockSize * parallelism <= ImportedHashCost.scryptMaximumWork
            else {
                throw parameter(
                    "cpuMemCost (a power of two), blockSize, parallelization and dkLen within this server's limits "
                        + "(memory 128·N·r at most 64 MiB, N·r·p at most 2^20, 16 to 64 bytes)"
                )
            }
            self = .standardScrypt(rounds: rounds, blockSize: blockSize, parallelism: parallelism, keyLength: keyLength)
        case "BCRYPT":
            self = .bcrypt
        case "PBKDF_SHA1": self = .pbkdf2(.sha1, rounds: try rounds(Self.pbkdf2Rounds))
        case "PBKDF2_SHA256": self = .pbkdf2(.sha256, rounds: try rounds(Self.pbkdf2Rounds))
        case "HMAC_MD5": self = .hmac(.md5, key: try key(), placement: try placement(default: .passwordFirst))
        case "HMAC_SHA1": self = .hmac(.sha1, key: try key(), placement: try placement(default: .passwordFirst))
        case "HMAC_SHA256": self = .hmac(.sha256, key: try key(), placement: try placement(default: .passwordFirst))
        case "HMAC_SHA512": self = .hmac(.sha512, key: try key(), placement: try placement(default: .passwordFirst))
        case "MD5": self = .digest(.md5, rounds: try rounds(Self.md5Rounds, default: 0), placement: try placement(default: .saltFirst))
        case "SHA1": self = .digest(.sha1, rounds: try rounds(Self.digestRounds), placement: try placement(default: .saltFirst))
        case "SHA256": self = .digest(.sha256, rounds: try rounds(Self.digestRounds), placement: try placement(default: .saltFirst))
        case "SHA512": self = .digest(.sha512, rounds: try rounds(Self.digestRounds), placement: try placement(default: .saltFirst))
        default:
            throw AccountService.rejected(.invalidHashAlgorithm, detail: "\(algorithm.prefix(40)) is not supported")
        }
    }

    /// The stored form of one user's `passwordHash` and `salt` (``ImportedPasswordHash`` reads it
    /// back). A fast digest or MAC is never stored as it is: what is kept is the project's scrypt of
    /// it, so a reader of the table (even one with the master key) meets scrypt whatever the old
    /// algorithm was. An HMAC key is stored sealed (`sealedKey`, sealed once per request).
    func stored(hash: Data, salt: Data, sealedKey: Data?, inner: PasswordHasher) async throws -> String {
        switch self {
        case .standardScrypt(let rounds, let blockSize, let parallelism, let keyLength):
            guard hash.count == keyLength else { throw ImportFailure.invalidHash }
            return "scrypt$\(rounds)$\(blockSize)$\(parallelism)$\(salt.base64EncodedString())$\(hash.base64EncodedString())"
        case .firebaseScrypt(let signerKey, let separator, let rounds, let memoryCost):
            // hash = signerKey ⊕ keystream(scrypt(password)); keeping the keystream alone checks the
            // password the same way and leaves the project's signer key out of the table.
            guard hash.count == signerKey.count else { throw ImportFailure.invalidHash }
            let keystream = Data(zip(hash, signerKey).map { $0 ^ $1 })
            return FirebaseScrypt.stored(memoryCost: memoryCost, rounds: rounds, salt: salt + separator, keystream: keystream)
        case .bcrypt:
            guard let text = String(data: hash, encoding: .ascii), text.utf8.count == 60, text.hasPrefix("$2"),
                let cost = ImportedHashCost.bcryptCost(text)
            else { throw ImportFailure.invalidHash }
            // The cost is the hash's own: one over the bound refuses this user only (decision 23).
            guard cost <= ImportedHashCost.bcryptMaximumCost else {
                throw ImportFailure(message: "passwordHash is invalid: its bcrypt cost is above \(ImportedHashCost.bcryptMaximumCost)")
            }
            return "bcrypt$\(hash.base64EncodedString())"
        case .pbkdf2(let digest, let rounds):
            guard (16...512).contains(hash.count) else { throw ImportFailure.invalidHash }
            return "pbkdf2-\(digest.rawValue)$\(rounds)$\(salt.base64EncodedString())$\(hash.base64EncodedString())"
        case .hmac(let digest, _, let placement):
            guard hash.count == digest.length, let sealedKey else { throw ImportFailure.invalidHash }
            let wrapped = try await inner.hash(hash.base64EncodedString())
            return "hmac-\(digest.rawValue)$\(placement.rawValue)$\(sealedKey.base64EncodedString())$\(salt.base64EncodedString())$"
                + wrapped
        case .digest(let digest, let rounds, let placement):
            guard hash.count == (digest == .md5 ? 32 : digest.length) else { throw ImportFailure.invalidHash }
            let wrapped = try await inner.hash(hash.base64EncodedString())
            return "digest-\(digest.rawValue)$\(rounds)$\(placement.rawValue)$\(salt.base64EncodedString())$\(wrapped)"
        }
    }

    /// The HMAC key sealed for the table, once per request; `nil` for the other algorithms.
    func sealedKey(_ sealer: SecretSealer) throws -> Data? {
        guard case .hmac(_, let key, _) = self else { return nil }
        return try sealer.seal(key, keyID: ImportedPasswordHash.hmacKeyID)
    }
}

/// One user's hash this scheme cannot hold: reported at the user's index.
struct ImportFailure: Error {
    let message: String

    static let invalidHash = ImportFailure(message: "passwordHash is invalid")
}
