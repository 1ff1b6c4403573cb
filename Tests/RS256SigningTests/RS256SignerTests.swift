import Crypto
import Foundation
import RS256Signing
import Testing
import _CryptoExtras

@Suite struct RS256SignerTests {
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let message = Array("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0".utf8)

    /// PKCS#1 v1.5 is deterministic: OpenSSL must give BoringSSL's bytes for the same key and input.
    @Test func signsTheSameBytesAsSwiftCrypto() throws {
        let expected = try Self.key.signature(for: Self.message, padding: .insecurePKCS1v1_5).rawRepresentation
        for der in [Self.key.derRepresentation, Self.key.pkcs8DERRepresentation] {
            let signer = try RS256Signer(privateKeyDER: Array(der))
            #expect(try signer.sign(Self.message) == Array(expected))
        }
    }

    @Test func signaturesVerifyWithThePublicKey() throws {
        let signer = try RS256Signer(privateKeyDER: Array(Self.key.derRepresentation))
        let signature = try signer.sign(Self.message)
        #expect(signature.count == 256)
        let publicKey = Self.key.publicKey
        #expect(publicKey.isValidSignature(.init(rawRepresentation: signature), for: Self.message, padding: .insecurePKCS1v1_5))
        #expect(!publicKey.isValidSignature(.init(rawRepresentation: signature), for: Self.message + [0x2e], padding: .insecurePKCS1v1_5))
    }

    @Test func oneSignerSignsOnManyThreadsAtOnce() async throws {
        let signer = try RS256Signer(privateKeyDER: Array(Self.key.derRepresentation))
        let messages = (0..<64).map { Array("message \($0)".utf8) }
        let signatures = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, message) in messages.enumerated() {
                group.addTask { (index, try signer.sign(message)) }
            }
            return try await group.reduce(into: [Int: [UInt8]]()) { $0[$1.0] = $1.1 }
        }
        for (index, message) in messages.enumerated() {
            let expected = try Self.key.signature(for: message, padding: .insecurePKCS1v1_5).rawRepresentation
            #expect(signatures[index] == Array(expected))
        }
    }

    @Test func refusesAKeyThatIsNotRSA() throws {
        let ecKey = P256.Signing.PrivateKey()
        #expect(throws: RS256SigningError.self) { try RS256Signer(privateKeyDER: Array(ecKey.derRepresentation)) }
    }

    @Test func refusesBytesThatAreNoKey() throws {
        #expect(throws: RS256SigningError.self) { try RS256Signer(privateKeyDER: []) }
        #expect(throws: RS256SigningError.self) { try RS256Signer(privateKeyDER: Array(repeating: 0x30, count: 40)) }
        let der = Array(Self.key.derRepresentation)
        #expect(throws: RS256SigningError.self) { try RS256Signer(privateKeyDER: Array(der.prefix(der.count / 2))) }
    }
}
