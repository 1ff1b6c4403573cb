import ExtrasBase64
import Foundation

/// base64url without padding (RFC 4648 §5), as JWKs, JWTs, our scoped tokens and our random handles
/// (session info, out-of-band codes, iOS receipts) use it. Through swift-extras-base64: Foundation's
/// base64 plus character replacement cost 6 % of a sign-in's CPU (docs/performance.md).
public enum Base64URL {
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// `nil` for anything that is not unpadded base64url.
    public static func decode(_ text: some StringProtocol) -> Data? {
        (try? Base64.decode(bytes: Array(text.utf8), options: [.base64UrlAlphabet, .omitPaddingCharacter])).map { Data($0) }
    }

    /// `byteCount` bytes from the system's secure random source, encoded.
    public static func random(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return encode((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
