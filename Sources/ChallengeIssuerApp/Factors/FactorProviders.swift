import Configuration
import Crypto
import FactorSMS
import FactorTOTP
import Foundation
import PluginKit

/// The second-factor providers, each present when `factors.enabled` (default `phone,totp`) names
/// its kind. Typed per kind, since each kind's challenges use what only its provider offers (a test
/// number's fixed SMS code).
struct FactorProviders: Sendable {
    let phone: SMSFactorProvider?
    let totp: TOTPFactorProvider?

    /// `masterKey`: the service's; SMS codes are hashed under a key derived from it.
    init(_ reader: ConfigReader, masterKey: SymmetricKey) {
        let enabled = Set(
            reader.stringArray(forKey: "factors.enabled", default: [FactorKind.phone, .totp].map(\.rawValue))
                .compactMap(FactorKind.init(rawValue:))
        )
        let codeKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: masterKey, info: Data("mfa-backend SMS code hashes".utf8), outputByteCount: 32
        )
        let phone = SMSFactorProvider(codeKey: codeKey)
        let totp = TOTPFactorProvider()
        self.phone = enabled.contains(phone.kind) ? phone : nil
        self.totp = enabled.contains(totp.kind) ? totp : nil
    }
}
