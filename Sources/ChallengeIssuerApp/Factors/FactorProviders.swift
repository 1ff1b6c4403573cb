import Configuration
import FactorSMS
import FactorTOTP
import PluginKit

/// The second-factor providers, each present when `factors.enabled` (default `phone,totp`) names
/// its kind. Typed per kind, since each kind's challenges use what only its provider offers (a test
/// number's fixed SMS code).
struct FactorProviders: Sendable {
    let phone: SMSFactorProvider?
    let totp: TOTPFactorProvider?

    init(_ reader: ConfigReader) {
        let enabled = Set(reader.stringArray(forKey: "factors.enabled", default: ["phone", "totp"]))
        let phone = SMSFactorProvider()
        let totp = TOTPFactorProvider()
        self.phone = enabled.contains(phone.kind) ? phone : nil
        self.totp = enabled.contains(totp.kind) ? totp : nil
    }
}
