import ArgumentParser
import BuildInfo
import Foundation

/// What a service executable takes on its command line: `--help` and `--version` only. Everything
/// else is configuration, from the environment or `MFA_CONFIG_FILE` (deploy/configuration.md), so a
/// container, a unit file and a test stack all configure a service the same way; an unknown
/// argument stops it with a usage message instead of being ignored.
struct ServiceCommandLine: ParsableCommand {
    static var configuration: CommandConfiguration {
        let name = URL(fileURLWithPath: CommandLine.arguments.first ?? "service").lastPathComponent
        return CommandConfiguration(
            commandName: name,
            abstract: "\(name) \(BuildInfo.version): \(Self.roles[name] ?? "a service of mfa-backend").",
            discussion: """
                Configured by environment variables (MFA_ and the key in upper case with underscores: \
                rpc.port is MFA_RPC_PORT) and the JSON file named by MFA_CONFIG_FILE; every key and its \
                default is in deploy/configuration.md. A value that cannot be read stops the service with \
                its key named. Runs until SIGTERM or SIGINT; /healthz, /readyz and /metrics are on the ops port.
                """,
            version: BuildInfo.version
        )
    }

    static let roles = [
        "factor-registry": "accounts, passwords, second-factor enrollments, tenants and their settings",
        "challenge-issuer": "SMS and TOTP challenges, codes, message delivery and app verification",
        "session-token": "ID tokens, refresh tokens, signing keys and custom-token verification",
        "gateway": "the public Identity Toolkit API and the admin API, over the other three services",
        "mfa-all-in-one": "the four services in one process, calling each other in-process",
    ]

    /// Prints help or the version and exits when asked; exits with a usage message on anything else.
    static func handle(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        do {
            _ = try parse(arguments)
        } catch {
            exit(withError: error)
        }
    }
}
