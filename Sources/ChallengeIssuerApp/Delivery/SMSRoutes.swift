import Configuration
import Logging
import PluginKit
import ServiceKit
import ServiceTransport

/// The SMS senders a message can go by: the default one (`sms.sender`, `sms.http.*`) and the named
/// routes an operator adds (`sms.routeNames: eu,us`, each configured as the default is under
/// `sms.route.<name>.`: `sms.route.eu.sender`, `sms.route.eu.http.baseUrl`, …). A `beforeSendSms`
/// blocking function picks one by name (`smsRoute`, docs/blocking-functions.md): a provider per region.
struct SMSRoutes: Sendable {
    let standard: any SMSSender
    let named: [String: any SMSSender]

    /// A route's name: what a function's answer and the settings spell it with.
    static func isValidName(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count)
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }

    static func configured(_ reader: ConfigReader, mode: DeploymentMode, outside: OutsideHTTPClients, logger: Logger) throws -> SMSRoutes {
        var named: [String: any SMSSender] = [:]
        for name in reader.stringArray(forKey: "sms.routeNames", default: []) {
            guard isValidName(name) else {
                throw InvalidSetting(key: "sms.routeNames", reason: "'\(name)' is not a route name: 1-32 of a-z, 0-9 and -")
            }
            named[name] = try SMSSenders.configured(reader, prefix: "sms.route.\(name)", mode: mode, outside: outside, logger: logger)
        }
        return SMSRoutes(
            standard: try SMSSenders.configured(reader, prefix: "sms", mode: mode, outside: outside, logger: logger), named: named
        )
    }

    /// The sender of `route` (`nil`: the default one); `nil` for a name this deployment lacks.
    func sender(_ route: String?) -> (any SMSSender)? {
        guard let route else { return standard }
        return named[route]
    }
}
