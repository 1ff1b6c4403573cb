internal import COpenSSL

/// RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256) made by the system's OpenSSL 3.
///
/// Why not swift-crypto, which verifies our tokens and makes our keys: every ID token costs one
/// RSA-2048 private-key operation, the largest single cost of a sign-in. On CPUs with AVX-512 IFMA
/// (Intel Ice Lake and later, AMD Zen 4) OpenSSL 3 does that operation about twice as fast as
/// BoringSSL (3,278 against 1,513 signatures per second per core on the benchmark machine; see
/// docs/performance.md); elsewhere the gain is smaller or none (not measured). PKCS#1 v1.5 signatures are deterministic, so both
/// libraries produce the same bytes for the same key and message (tested).
public final class RS256Signer: @unchecked Sendable {
    // `@unchecked`: the key is never modified after `init`, and OpenSSL 3 allows one key to sign on
    // several threads at once (each call has its own digest context).
    private let key: OpaquePointer

    /// Loads an RSA private key from its DER form (PKCS#1 `RSAPrivateKey` or PKCS#8).
    public init(privateKeyDER der: [UInt8]) throws {
        var loaded: OpaquePointer?
        der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            loaded = d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let loaded else { throw RS256SigningError.unreadableKey(Self.drainErrors()) }
        guard EVP_PKEY_get_base_id(loaded) == EVP_PKEY_RSA else {
            EVP_PKEY_free(loaded)
            throw RS256SigningError.notRSA
        }
        key = loaded
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// The signature of `message` (the JWS signing input), as many bytes as the modulus.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw RS256SigningError.failed(Self.drainErrors()) }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw RS256SigningError.failed(Self.drainErrors())
        }
        var signature = [UInt8](repeating: 0, count: Int(EVP_PKEY_get_size(key)))
        var length = signature.count
        let status = message.withUnsafeBufferPointer { input in
            signature.withUnsafeMutableBufferPointer { output in
                EVP_DigestSign(context, output.baseAddress, &length, input.baseAddress, input.count)
            }
        }
        guard status == 1 else { throw RS256SigningError.failed(Self.drainErrors()) }
        signature.removeSubrange(length...)
        return signature
    }

    /// The library: `OpenSSL 3.0.19 27 Jan 2026` or similar (reported by the crypto benchmark).
    public static var libraryVersion: String {
        String(cString: OpenSSL_version(OPENSSL_VERSION))
    }

    /// OpenSSL's error queue is per thread: read it out so the next call starts clean.
    private static func drainErrors() -> String {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            messages.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.joined(separator: "; ")
    }
}

/// Why a key could not be loaded or a signature not made. Never contains key material.
public enum RS256SigningError: Error, CustomStringConvertible {
    case unreadableKey(String)
    case notRSA
    case failed(String)

    public var description: String {
        switch self {
        case .unreadableKey(let detail): "the RSA private key could not be read: \(detail)"
        case .notRSA: "the private key is not an RSA key"
        case .failed(let detail): "RS256 signing failed: \(detail)"
        }
    }
}
