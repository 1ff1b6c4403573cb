import ArgumentParser
import Crypto
import FactorTOTP
import Foundation
import RS256Signing
import _CryptoExtras

/// The crypto ceilings the full flows are compared with, one core, release build: RS256
/// signatures and verifications (an ID token each), TOTP code checks (HMAC-SHA1), AES-GCM opens (a
/// sealed TOTP secret), SHA-256 (hashed tokens and codes), and the password hash at given parameters.
struct CryptoCeiling: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "crypto", abstract: "Per-core ceilings of the crypto in each flow.")

    @Option(help: "Seconds per measurement.") var seconds: Double = 2
    @Option(help: "scrypt N, r, p of the password hash (the stack's passwords.scrypt.*).") var scrypt: String = "16384,8,1"

    func run() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let message = Data(repeating: 0x61, count: 700)  // about an ID token's signing input
        let signature = try key.signature(for: message, padding: .insecurePKCS1v1_5)
        let secret = (0..<20).map { UInt8($0) }
        let sealingKey = SymmetricKey(size: .bits256)
        let sealed = try AES.GCM.seal(Data(secret), using: sealingKey, authenticating: Data("enrollment".utf8)).combined!
        let parts = scrypt.split(separator: ",").compactMap { Int($0) }
        guard parts.count == 3 else { throw ValidationError("--scrypt takes N,r,p") }
        var step: Int64 = 59_000_000

        // ID tokens are signed with OpenSSL (RS256Signer); swift-crypto's BoringSSL is the comparison.
        let signer = try RS256Signer(privateKeyDER: Array(key.derRepresentation))
        let input = Array(message)
        report("RS256 sign (2048-bit, \(RS256Signer.libraryVersion), ID tokens)", try measure { _ = try signer.sign(input) })
        report(
            "RS256 sign (2048-bit, swift-crypto's BoringSSL)",
            try measure { _ = try key.signature(for: message, padding: .insecurePKCS1v1_5) })
        report("RS256 verify", try measure { _ = key.publicKey.isValidSignature(signature, for: message, padding: .insecurePKCS1v1_5) })
        report(
            "TOTP code (HMAC-SHA1, one step)",
            try measure {
                step += 1
                _ = TOTPFactorProvider.code(secret: secret, step: step)
            })
        report(
            "TOTP check at adjacentIntervals 5 (11 steps)",
            try measure {
                step += 1
                for offset in -5...5 { _ = TOTPFactorProvider.code(secret: secret, step: step + Int64(offset)) }
            })
        report(
            "AES-256-GCM open (a sealed TOTP secret)",
            try measure {
                _ = try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: sealingKey, authenticating: Data("enrollment".utf8))
            })
        report("SHA-256 of a 64-byte token", try measure { _ = SHA256.hash(data: message.prefix(64)) })
        report(
            "scrypt N=\(parts[0]) r=\(parts[1]) p=\(parts[2]) (one password hash)",
            try measure {
                _ = try KDF.Scrypt.deriveKey(
                    from: Data("correct horse".utf8), salt: Data(repeating: 1, count: 16), outputByteCount: 32, rounds: parts[0],
                    blockSize: parts[1], parallelism: parts[2]
                )
            })
    }

    /// Operations per second on this thread, after a short warm-up.
    func measure(_ operation: () throws -> Void) throws -> Double {
        for _ in 0..<3 { try operation() }
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        var count = 0
        let start = clock.now
        while clock.now < deadline {
            try operation()
            count += 1
        }
        let elapsed = start.duration(to: clock.now)
        return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    func report(_ name: String, _ rate: Double) {
        print(String(format: "%@: %.0f/s per core (%.3f ms each)", name, rate, 1000 / rate))
    }
}
