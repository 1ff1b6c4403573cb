import Configuration
import Logging
import PluginKit
import ServiceKit

/// The one list of email senders, chosen by `email.sender`: `sink` (the development default) or
/// `smtp` (the production default; needs `email.smtp.*`).
enum EmailSenders {
    struct UnknownSender: Error, CustomStringConvertible {
        let name: String
        var description: String { "email.sender \"\(name)\" is not one of: sink, smtp" }
    }

    static func configured(_ reader: ConfigReader, mode: DeploymentMode, logger: Logger) throws -> any EmailSender {
        let name = reader.string(forKey: "email.sender", default: mode == .development ? "sink" : "smtp")
        switch name {
        case "sink":
            return SinkEmailSender(logger: logger)
        case "smtp":
            return UnconfiguredEmailSender()
        default:
            throw UnknownSender(name: name)
        }
    }
}
