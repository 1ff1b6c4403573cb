import Contracts
import IdentityToolkit
import JSONRPC

/// `smsDefenseConfig` in the admin resources (a project's config and a tenant; this server's
/// addition): written back as stored, read strictly (an unknown member is refused, not dropped).
/// `{}` clears it, so the deployment's defaults apply again.
enum SMSDefenseDocument {
    static let members: Set<String> = [
        "countryHourlyLimit", "prefixHourlyLimit", "dailySpendCapUsd", "monthlySpendCapUsd", "segmentPricesUsd", "anomalyFactor",
        "anomalyMinimumHourlySends",
    ]

    static func document(_ config: SMSDefenseConfig?) -> JSONValue? {
        config.flatMap { try? JSONCoding.value(of: $0) }
    }

    static func config(_ value: JSONValue?) throws -> SMSDefenseConfig? {
        guard let value, value != .null else { return nil }
        guard case .object(let given) = value else { throw invalid("must be an object") }
        for name in given.keys where !members.contains(name) {
            throw invalid("has no member \(name) (\(members.sorted().joined(separator: ", ")))")
        }
        let config: SMSDefenseConfig
        do {
            config = try JSONCoding.decode(SMSDefenseConfig.self, from: value)
        } catch {
            throw invalid("members are numbers, and segmentPricesUsd an object of numbers")
        }
        return config == SMSDefenseConfig() ? nil : config
    }

    static func invalid(_ detail: String) -> IdentityToolkitError {
        IdentityToolkitError(.invalidConfig, detail: "smsDefenseConfig \(detail)")
    }
}
