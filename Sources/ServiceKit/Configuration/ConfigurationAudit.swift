import Configuration
import Synchronization

/// Watches every configuration read of the process (swift-configuration's access reporter) for two
/// things the readers' defaults would otherwise hide:
/// - a value that is set but cannot be read as its type (`MFA_RPC_PORT=abc`): the service refuses to
///   start and names the key, instead of quietly running on the default;
/// - a value found under an old environment name, without the `MFA_` prefix: it still works for this
///   release, and the service warns once per name with the name to use instead.
public final class ConfigurationAudit: AccessReporter, Sendable {
    /// The process's one environment, so one audit.
    public static let shared = ConfigurationAudit()

    public struct Problem: Sendable, Equatable {
        public let key: String
        public let variable: String?
        public let type: String
    }

    private struct State {
        var problems: [Problem] = []
        var oldNames: Set<String> = []
    }
    private let state = Mutex(State())

    public func report(_ event: AccessEvent) {
        let key = event.metadata.key.components.joined(separator: ".")
        let found = event.providerResults.first { result in
            if case .success(let lookup) = result.result { return lookup.value != nil }
            return true
        }
        var variable: String?
        if case .success(let lookup)? = found?.result, found?.providerName.contains("EnvironmentVariablesProvider") == true {
            variable = lookup.encodedKey
        }
        let unreadable: Bool
        switch (event.result, found?.result) {
        case (.failure, _), (_, .failure?): unreadable = true
        default: unreadable = event.conversionError != nil
        }
        state.withLock { state in
            if unreadable {
                let problem = Problem(key: key, variable: variable, type: "\(event.metadata.valueType)")
                if !state.problems.contains(problem) { state.problems.append(problem) }
            }
            if let variable, !variable.hasPrefix("MFA_") { state.oldNames.insert(variable) }
        }
    }

    /// The first value that could not be read, as the error that stops the service.
    public func check() throws {
        guard let problem = state.withLock({ $0.problems.first }) else { return }
        let name = Self.environmentName(problem.key)
        let source =
            problem.variable.map { "environment variable \($0)" }
            ?? "environment variable MFA_\(name) or its old name \(name), or the file named by MFA_CONFIG_FILE"
        throw InvalidSetting(
            key: problem.key,
            reason: "the value set (\(source)) is not a valid \(problem.type); fix or remove it (deploy/configuration.md)"
        )
    }

    /// `rpc.port` → `RPC_PORT`, `shutdown.graceSeconds` → `SHUTDOWN_GRACE_SECONDS`: the
    /// environment provider's spelling of a key.
    static func environmentName(_ key: String) -> String {
        var name = ""
        for character in key {
            if character == "." {
                name += "_"
            } else if character.isUppercase {
                name += "_" + String(character)
            } else {
                name += character.uppercased()
            }
        }
        return name
    }

    /// Old environment names in use, each with its new name, sorted.
    public var oldNames: [(old: String, new: String)] {
        state.withLock { $0.oldNames }.sorted().map { (old: $0, new: "MFA_" + $0) }
    }
}
