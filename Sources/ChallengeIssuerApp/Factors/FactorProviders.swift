import Configuration
import FactorSMS
import FactorTOTP
import PluginKit

/// The one list of second-factor providers, filtered by `factors.enabled` (default `phone,totp`).
/// Adding a kind is one module, one line here, and its methods.
enum FactorProviders {
    static let all: [any FactorProvider] = [SMSFactorProvider(), TOTPFactorProvider()]

    static func configured(_ reader: ConfigReader) -> [String: any FactorProvider] {
        let enabled = Set(reader.stringArray(forKey: "factors.enabled", default: ["phone", "totp"]))
        return Dictionary(uniqueKeysWithValues: all.filter { enabled.contains($0.kind) }.map { ($0.kind, $0) })
    }
}
