import ArgumentParser
import Foundation
import JSONRPC
import NIOHTTP1

/// `mfa-admin keys list|rotate`: session-token's ID-token signing keys, through its ops listener
/// (`/admin/signing-keys`), which takes the same admin credential.
struct SigningKeyCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "List or rotate the keys that sign ID tokens.", subcommands: [List.self, Rotate.self]
    )

    struct OpsOptions: ParsableArguments {
        @Option(
            name: .customLong("ops-url"),
            help: "session-token's ops listener [env: MFA_SESSION_TOKEN_OPS_URL; default: http://127.0.0.1:9103]."
        )
        var flag: String?

        var url: String {
            flag ?? ProcessInfo.processInfo.environment["MFA_SESSION_TOKEN_OPS_URL"] ?? "http://127.0.0.1:9103"
        }
    }

    static func printKeys(_ keys: JSONValue?) {
        guard case .array(let items)? = keys else { return }
        Output.table(
            [["KID", "SIGNING FROM", "SIGNING NOW"]]
                + items.map { [Output.text($0["kid"]), Output.text($0["signingFrom"]), Output.text($0["signing"])] }
        )
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the published keys.")
        @OptionGroup var gateway: GatewayOptions
        @OptionGroup var ops: OpsOptions

        func run() async throws {
            let keys = try await gateway.withClient { try await $0.ops(.GET, ops.url + "/admin/signing-keys") }
            if gateway.json { return Output.json(keys) }
            SigningKeyCommands.printKeys(keys)
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a key that takes over signing once verifiers have had time to fetch it."
        )
        @OptionGroup var gateway: GatewayOptions
        @OptionGroup var ops: OpsOptions

        func run() async throws {
            let answer = try await gateway.withClient { try await $0.ops(.POST, ops.url + "/admin/signing-keys/rotate") }
            if gateway.json { return Output.json(answer) }
            Output.line("added \(Output.text(answer["rotated"])), signing from \(Output.text(answer["signingFrom"]))")
            SigningKeyCommands.printKeys(answer["keys"])
        }
    }
}
