import Crypto
import Foundation
import ServiceKit
import _CryptoExtras

/// Memory-hard password hashing with scrypt (swift-crypto), in Firebase's variant when p is 1 (the
/// default: ``FirebaseScrypt``, so that hashes move to and from Firebase and Identity Platform), in
/// plain scrypt otherwise (`scrypt$<N>$<r>$<p>$<base64 salt>$<base64 key>`, also the form of hashes
/// made before). Each stored hash carries its parameters, so they can change without breaking
/// existing hashes. Passwords and hashes never reach a log or an error.
struct PasswordHasher: Sendable {
    /// scrypt's N (a power of two), r and p.
    let rounds: Int
    let blockSize: Int
    let parallelism: Int
    /// Shared by every hasher of the process: bounds the hashes waiting for CPU.
    var queue: HashingQueue = .unbounded
    static let keyLength = 32
    /// Longer passwords are refused before hashing: they only cost us CPU.
    static let maximumPasswordBytes = 4096

    /// scrypt costs tens of milliseconds of CPU: both operations run as ``BlockingWork``.
    func hash(_ password: String) async throws -> String {
        try await queue.run { try self.hashBlocking(password) }
    }

    /// Whether `password` matches `stored`, compared in constant time; `false` for a malformed hash.
    /// Throws `TOO_MANY_ATTEMPTS_TRY_LATER` when the hashing queue is full.
    func verify(_ password: String, against stored: String) async throws -> Bool {
        try await queue.run { self.verifyBlocking(password, against: stored) }
    }

    /// The same, on the calling thread (start-up only: the decoy hashes).
    func hashBlocking(_ password: String) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        if let memoryCost = firebaseMemoryCost {
            let salted = salt + FirebaseScrypt.separator
            guard
                let keystream = FirebaseScrypt.keystream(
                    Data(password.utf8), salt: salted, memoryCost: memoryCost, rounds: blockSize, length: FirebaseScrypt.keystreamLength
                )
            else { throw CryptoKitError.incorrectParameterSize }
            return FirebaseScrypt.stored(memoryCost: memoryCost, rounds: blockSize, salt: salted, keystream: keystream)
        }
        let key = try derive(password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        return "scrypt$\(rounds)$\(blockSize)$\(parallelism)$\(salt.base64EncodedString())$\(key.base64EncodedString())"
    }

    /// log2 N, when this hasher makes Firebase's variant (p = 1); `nil` for plain scrypt.
    var firebaseMemoryCost: Int? {
        guard parallelism == 1, rounds > 1, rounds & (rounds - 1) == 0 else { return nil }
        return rounds.trailingZeroBitCount
    }

    /// Whether `stored` is exactly what this hasher makes now (else a sign-in replaces it).
    func isCurrent(_ stored: String) -> Bool {
        if let memoryCost = firebaseMemoryCost {
            guard let parts = FirebaseScrypt.parts(stored) else { return false }
            return parts.memoryCost == memoryCost && parts.rounds == blockSize && parts.salt.last == FirebaseScrypt.separator.first
                && parts.salt.count == 16 + FirebaseScrypt.separator.count && parts.keystream.count == FirebaseScrypt.keystreamLength
        }
        let fields = stored.split(separator: "$")
        guard fields.count == 6, fields[0] == "scrypt", let key = Data(base64Encoded: String(fields[5])) else { return false }
        return fields[1] == "\(rounds)" && fields[2] == "\(blockSize)" && fields[3] == "\(parallelism)" && key.count == Self.keyLength
    }

    /// The same, on the calling thread (inside a queued job: an imported fast digest's wrapping).
    func verifyBlocking(_ password: String, against stored: String) -> Bool {
        if stored.hasPrefix(FirebaseScrypt.tag + "$") { return FirebaseScrypt.matches(password, stored: stored) }
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let rounds = Int(parts[1]), let blockSize = Int(parts[2]),
            let parallelism = Int(parts[3]), let salt = Data(base64Encoded: parts[4]),
            let expected = Data(base64Encoded: parts[5]),
            Self.acceptable(rounds: rounds, blockSize: blockSize, parallelism: parallelism, keyLength: expected.count),
            let actual = try? derive(
                password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism, keyLength: expected.count
            )
        else { return false }
        return AdminAuthenticator.constantTimeEquals(Array(actual), Array(expected))
    }

    /// Parameters a stored (possibly imported) hash may use: N a power of two, memory (128·N·r
    /// bytes) at most 64 MiB, p at most 16, keys of 16 to 64 bytes. Anything else is refused rather
    /// than letting one sign-in take the machine.
    static func acceptable(rounds: Int, blockSize: Int, parallelism: Int, keyLength: Int) -> Bool {
        rounds >= 2 && rounds & (rounds - 1) == 0 && blockSize >= 1 && blockSize <= 64 && rounds * blockSize <= 1 << 19
            && (1...16).contains(parallelism) && (16...64).contains(keyLength)
    }

    private func derive(
        _ password: String, salt: Data, rounds: Int, blockSize: Int, parallelism: Int, keyLength: Int = PasswordHasher.keyLength
    ) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Data(password.utf8), salt: salt, outputByteCount: keyLength, rounds: rounds,
            blockSize: blockSize, parallelism: parallelism
        )
        return key.withUnsafeBytes { Data($0) }
    }
}
