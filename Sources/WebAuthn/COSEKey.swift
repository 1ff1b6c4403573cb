import Crypto
import Foundation
import _CryptoExtras

/// A credential's public key as the authenticator gave it (a COSE_Key, RFC 9052/9053), in one of the
/// three algorithms we offer: ES256 (EC2 on P-256), RS256 (RSA, PKCS #1 v1.5 over SHA-256, at least
/// 2,048 bits) and EdDSA (OKP on Ed25519). Anything else is refused when it is parsed.
public struct COSEKey: Sendable {
    public enum Algorithm: Int64, Sendable, CaseIterable {
        case es256 = -7
        case edDSA = -8
        case rs256 = -257
    }

    enum Key: Sendable {
        case es256(P256.Signing.PublicKey)
        case edDSA(Curve25519.Signing.PublicKey)
        case rs256(_RSA.Signing.PublicKey)
    }

    public struct Unsupported: Error, Hashable, CustomStringConvertible {
        public let reason: String
        public var description: String { "unsupported public key: \(reason)" }
    }

    public let algorithm: Algorithm
    let key: Key

    /// Parses a COSE_Key map. `kty` and `alg` must agree, and the curve must be the algorithm's.
    public init(_ map: CBOR) throws(Unsupported) {
        guard case .map = map else { throw Unsupported(reason: "not a map") }
        guard let label = map[3]?.integer, let algorithm = Algorithm(rawValue: label) else {
            throw Unsupported(reason: "algorithm \(map[3]?.integer.map(String.init) ?? "missing")")
        }
        self.algorithm = algorithm
        let kty = map[1]?.integer
        switch algorithm {
        case .es256:
            guard kty == 2, map[-1]?.integer == 1, let x = map[-2]?.bytes, let y = map[-3]?.bytes, x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
            else { throw Unsupported(reason: "not an EC2 P-256 point") }
            self.key = .es256(key)
        case .edDSA:
            guard kty == 1, map[-1]?.integer == 6, let x = map[-2]?.bytes, x.count == 32,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
            else { throw Unsupported(reason: "not an OKP Ed25519 key") }
            self.key = .edDSA(key)
        case .rs256:
            guard kty == 3, let n = map[-1]?.bytes, let e = map[-2]?.bytes, n.count <= 1024, (1...8).contains(e.count) else {
                throw Unsupported(reason: "not an RSA key")
            }
            // The initializer refuses keys under 2,048 bits.
            guard let key = try? _RSA.Signing.PublicKey(n: n, e: e) else { throw Unsupported(reason: "an RSA key under 2048 bits") }
            self.key = .rs256(key)
        }
    }

    /// Whether `signature` signs `data` with this key (ES256 signatures are DER, as WebAuthn sends them).
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch key {
        case .es256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: data)
        case .edDSA(let key):
            return key.isValidSignature(signature, for: data)
        case .rs256(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
    }
}
