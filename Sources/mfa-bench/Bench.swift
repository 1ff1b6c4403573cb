import ArgumentParser

/// Benchmarks of a running stack. Figures go in notes and docs/performance.md, never in tests.
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa-bench",
        abstract: "Measure a running mfa-backend stack on loopback.",
        subcommands: [RPCRoundTrip.self, AccountFlows.self, TenantScale.self, MFAFlows.self, CryptoCeiling.self, LoadScenarios.self]
    )
}
