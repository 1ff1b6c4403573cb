import ExtrasBase64
import Foundation

/// base64url without padding (RFC 4648 §5), as JWKs, JWTs and our scoped tokens use it.
enum Base64URL {
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    static func decode(_ text: some StringProtocol) -> Data? {
        (try? Base64.decode(bytes: Array(text.utf8), options: [.base64UrlAlphabet, .omitPaddingCharacter])).map { Data($0) }
    }
}
