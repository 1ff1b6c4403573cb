import AsyncHTTPClient
import Configuration
import Contracts
import Logging
import PluginKit
import SMSHTTP
import ServiceKit
import ServiceTransport

/// The one list of SMS senders, chosen by `sms.sender`: `sink` (the development default: nothing
/// is sent; in development mode codes are listed by the emulator route) or `http` (a Twilio-style
/// Messages API: `sms.http.*`).
enum SMSSenders {
    /// `outside` makes the HTTP client of an outside endpoint (``OutsideHTTPClients``).
    /// `prefix`: `sms` for the default sender, `sms.route.<name>` for a named route (SMSRoutes).
    static func configured(
        _ reader: ConfigReader, prefix: String, mode: DeploymentMode, outside: OutsideHTTPClients, logger: Logger
    ) throws -> any SMSSender {
        let name = reader.string(forKey: ConfigKey("\(prefix).sender"), default: mode == .development ? "sink" : "http")
        switch name {
        case "sink":
            return SinkSMSSender(logger: logger)
        case "http":
            guard let baseURL = reader.string(forKey: ConfigKey("\(prefix).http.baseUrl")),
                let account = reader.string(forKey: ConfigKey("\(prefix).http.accountId")),
                let token = reader.string(forKey: ConfigKey("\(prefix).http.authToken"), isSecret: true),
                let from = reader.string(forKey: ConfigKey("\(prefix).http.from"))
            else {
                logger.warning(
                    "\(prefix).sender is http but \(prefix).http.baseUrl/accountId/authToken/from are not all set: SMS will fail")
                return UnconfiguredSMSSender()
            }
            return MessagesAPISender(
                configuration: .init(
                    baseURL: baseURL, accountID: account, authToken: token, from: from,
                    timeout: .milliseconds(reader.int(forKey: ConfigKey("\(prefix).http.timeoutMs"), default: 10_000))
                ),
                client: try outside.client(extraTrustRootsFile: reader.string(forKey: ConfigKey("\(prefix).http.trustRoots")))
            )
        default:
            throw EmailSenders.UnknownSetting(key: "\(prefix).sender", value: name, allowed: "sink, http")
        }
    }
}

/// The development sink: sends nothing (codes are in the development outbox).
struct SinkSMSSender: SMSSender {
    let logger: Logger
    var name: String { "sink" }

    func send(_ message: SMSMessage) async throws {
        logger.info(
            "SMS kept in the development outbox",
            metadata: [
                "to": "\(PhoneNumber.masked(message.to))", "encoding": "\(message.encoding.rawValue)", "segments": "\(message.segments)",
            ]
        )
    }
}

struct UnconfiguredSMSSender: SMSSender {
    var name: String { "none" }

    func send(_ message: SMSMessage) async throws {
        throw DeliveryFailed("no SMS sender is configured (set sms.sender and its settings)")
    }
}
