import Configuration
import EmailSMTP
import Logging
import PluginKit
import ServiceKit
import ServiceTransport

/// The one list of email senders, chosen by `email.sender`: `sink` (the development default) or
/// `smtp` (the production default; needs `email.smtp.*`).
enum EmailSenders {
    struct UnknownSender: Error, CustomStringConvertible {
        let name: String
        var description: String { "email.sender \"\(name)\" is not one of: sink, smtp" }
    }

    struct UnknownSetting: Error, CustomStringConvertible {
        let key: String
        let value: String
        let allowed: String
        var description: String { "\(key) \"\(value)\" is not one of: \(allowed)" }
    }

    static func configured(_ reader: ConfigReader, mode: DeploymentMode, logger: Logger) throws -> any EmailSender {
        let name = reader.string(forKey: "email.sender", default: mode == .development ? "sink" : "smtp")
        switch name {
        case "sink":
            return SinkEmailSender(logger: logger)
        case "smtp":
            guard let host = reader.string(forKey: "email.smtp.host"), !host.isEmpty else {
                logger.warning("email.sender is smtp but email.smtp.host is not set: emails will fail")
                return UnconfiguredEmailSender()
            }
            let securityName = reader.string(forKey: "email.smtp.security", default: "startTLS")
            guard let security = SMTPConfiguration.Security(rawValue: securityName) else {
                throw UnknownSetting(key: "email.smtp.security", value: securityName, allowed: "plain, startTLS, implicitTLS")
            }
            return try SMTPEmailSender(
                configuration: SMTPConfiguration(
                    host: host, port: reader.int(forKey: "email.smtp.port"),
                    from: reader.string(forKey: "email.smtp.from", default: "noreply@localhost"),
                    username: reader.string(forKey: "email.smtp.username"),
                    password: reader.string(forKey: "email.smtp.password", isSecret: true),
                    security: security, trustRootsPath: reader.string(forKey: "email.smtp.trustRoots"),
                    timeout: .milliseconds(reader.int(forKey: "email.smtp.timeoutMs", default: 10_000))
                )
            )
        default:
            throw UnknownSender(name: name)
        }
    }
}
