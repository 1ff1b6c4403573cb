import Contracts
import Crypto
import Foundation
import RS256Signing
import SwiftASN1
import X509
import _CryptoExtras

/// One RS256 signing key with its self-signed certificate (served in the x509 map, as Google does).
struct SigningKey: Sendable {
    let kid: String
    let privateKey: _RSA.Signing.PrivateKey
    /// The same key, loaded into the library that signs ID tokens.
    let signer: RS256Signer
    let certificatePEM: String
    /// When the key starts signing. A rotated-in key is published first and signs only from here,
    /// so verifiers that cache the key set have fetched it before they meet a token it signed.
    let signingFrom: Date

    /// The public key's JWK members, base64url without padding.
    let modulus: String
    let exponent: String

    init(kid: String, privateKey: _RSA.Signing.PrivateKey, certificatePEM: String, signingFrom: Date) throws {
        self.kid = kid
        self.privateKey = privateKey
        signer = try RS256Signer(privateKeyDER: Array(privateKey.derRepresentation))
        self.certificatePEM = certificatePEM
        self.signingFrom = signingFrom
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        modulus = Base64URL.encode(primitives.modulus)
        exponent = Base64URL.encode(primitives.publicExponent)
    }

    /// Generates a 2048-bit key, a random kid and a self-signed certificate valid for `validity`.
    static func generate(signingFrom: Date, validity: TimeInterval = 30 * 86400) throws -> SigningKey {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        var random = SystemRandomNumberGenerator()
        let kid = (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
        let name = try DistinguishedName { CommonName("securetoken.system.gserviceaccount.com") }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: Date() - 3600,
            notValidAfter: Date() + validity,
            issuer: name,
            subject: name,
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
            },
            issuerPrivateKey: .init(key)
        )
        return try SigningKey(
            kid: kid, privateKey: key, certificatePEM: try certificate.serializeAsPEM().pemString, signingFrom: signingFrom
        )
    }
}
