import Crypto
import Foundation

/// Encrypts secret material at rest with the service's master key (AES-256-GCM): session-token's
/// signing keys, challenge-issuer's TOTP secrets. The owner's id (a key id, an enrollment id) is
/// bound in as associated data, so a sealed secret copied onto another row does not open.
public struct SecretSealer: Sendable {
    let masterKey: SymmetricKey

    public init(masterKey: SymmetricKey) {
        self.masterKey = masterKey
    }

    /// Reads a base64 32-byte key, from configuration or from a file holding it.
    public static func masterKey(base64: String?, file: String?) throws -> SymmetricKey {
        var text = base64
        if text == nil || text?.isEmpty == true, let file {
            text = try? String(contentsOfFile: file, encoding: .utf8)
        }
        guard let text, let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)),
            bytes.count == 32
        else { throw MissingMasterKey(file: file) }
        return SymmetricKey(data: bytes)
    }

    public func seal(_ secret: Data, keyID: String) throws -> Data {
        try AES.GCM.seal(secret, using: masterKey, authenticating: Data(keyID.utf8)).combined!
    }

    public func open(_ sealed: Data, keyID: String) throws -> Data {
        try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: masterKey, authenticating: Data(keyID.utf8))
    }

    /// A key for one purpose (HKDF-SHA256 of the master key), such as the key of stored codes'
    /// keyed hashes: a leaked table of hashes cannot be searched without it.
    public func derivedKey(purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: masterKey, info: Data(purpose.utf8), outputByteCount: 32)
    }
}

/// A service with secrets at rest cannot start without its master key; say where it looked, never a value.
public struct MissingMasterKey: Error, CustomStringConvertible {
    let file: String?
    public var description: String {
        """
        no master key: set secrets.masterKey (base64 of 32 random bytes) or secrets.masterKeyFile \
        (looked for \(file ?? "none")); `mfa-dev-pki <directory>` writes a development one
        """
    }
}
