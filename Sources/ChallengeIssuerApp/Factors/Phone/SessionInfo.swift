import Contracts
import Crypto
import Foundation

/// A verification session's public handle (`sessionInfo`): 32 random bytes as base64url. Only
/// SHA-256 of it is stored, so the table alone cannot be used to finish anyone's verification.
enum SessionInfo {
    static func make() -> String { Base64URL.random(byteCount: 32) }

    /// The stored key of a presented `sessionInfo`; `nil` for anything that cannot be one.
    static func key(_ sessionInfo: String) -> String? {
        guard !sessionInfo.isEmpty, sessionInfo.utf8.count <= 512 else { return nil }
        return SHA256.hash(data: Data(sessionInfo.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
