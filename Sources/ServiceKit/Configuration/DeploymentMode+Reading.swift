import Configuration
import Foundation
import ServiceTransport

extension DeploymentMode {
    /// `mode`, strictly: absent means production; anything but the two names stops the service
    /// (a misspelt `developmnet` must not quietly become either).
    static func read(from reader: ConfigReader) throws -> DeploymentMode {
        guard let raw = reader.string(forKey: "mode") else { return .production }
        guard let mode = DeploymentMode(rawValue: raw.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw InvalidSetting(key: "mode", reason: "'\(raw)' is neither production nor development")
        }
        return mode
    }
}
