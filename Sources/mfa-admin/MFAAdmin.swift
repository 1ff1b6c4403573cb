import ArgumentParser
import BuildInfo

/// `mfa-admin`: an operator's command line over the gateway's admin REST API (the same calls the
/// Admin SDKs and `curl` make), and a TOTP enrollment drawn in the terminal.
@main
struct MFAAdmin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa-admin",
        abstract: "Operate an mfa-backend deployment through its gateway.",
        discussion: """
            Every command reads the gateway's address and the admin credential from flags or from the
            environment: MFA_GATEWAY_URL (default http://127.0.0.1:8080), MFA_ADMIN_TOKEN (the development
            stack's is "owner"), MFA_PROJECT (default demo-project), MFA_GATEWAY_CA (a CA file for an https
            gateway whose certificate is not from a public CA). --json prints the API's answers as they are.
            """,
        version: BuildInfo.version,
        subcommands: [
            TenantCommands.self, MFAConfigCommands.self, UserCommands.self, FactorCommands.self, SigningKeyCommands.self,
            AuditCommands.self, DemoCommands.self,
        ]
    )
}
