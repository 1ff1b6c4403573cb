import ArgumentParser
import BuildInfo
import NIOCore
import NIOPosix

/// Benchmarks of a running stack. Figures go in notes and docs/performance.md, never in tests.
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa-bench",
        abstract: "Measure a running mfa-backend stack on loopback.",
        version: BuildInfo.version,
        subcommands: [RPCRoundTrip.self, AccountFlows.self, TenantScale.self, MFAFlows.self, CryptoCeiling.self, LoadScenarios.self]
    )

    /// The load generator shares the machine with what it measures: like the services, it runs its
    /// tasks on NIO's event loops, so its own CPU per request stays small.
    static func main() async {
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
