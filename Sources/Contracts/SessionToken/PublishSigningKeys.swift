import JSONRPC

/// `signingKeys.publish`: the public halves of every key a verifier may meet now (the gateway
/// serves them as a JWK set and as a kid → certificate map).
public enum PublishSigningKeys: RPCMethod {
    public static let name = "signingKeys.publish"
    public typealias Params = RPCEmpty

    public struct Result: Codable, Sendable, Hashable {
        public var keys: [PublicSigningKey]
        /// How long a verifier may cache this set (shorter than the rotation lead).
        public var maxAgeSeconds: Int

        public init(keys: [PublicSigningKey], maxAgeSeconds: Int) {
            self.keys = keys
            self.maxAgeSeconds = maxAgeSeconds
        }
    }
}

/// One published RS256 key.
public struct PublicSigningKey: Codable, Sendable, Hashable {
    public var kid: String
    public var algorithm: String
    /// RSA modulus, base64url without padding (JWK `n`).
    public var modulus: String
    /// RSA public exponent, base64url without padding (JWK `e`).
    public var exponent: String
    /// A self-signed certificate for the key, PEM (Google's x509 map format).
    public var certificatePem: String

    public init(kid: String, algorithm: String, modulus: String, exponent: String, certificatePem: String) {
        self.kid = kid
        self.algorithm = algorithm
        self.modulus = modulus
        self.exponent = exponent
        self.certificatePem = certificatePem
    }
}
