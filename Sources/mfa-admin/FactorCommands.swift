import ArgumentParser
import JSONRPC

/// `mfa-admin factors list|withdraw|delete-passkey`: a user's second factors and passkeys, and an
/// operator's removal of one (`accounts:withdrawMfaEnrollment`, `accounts:update` `deletePasskey`:
/// either ends the sessions established with it).
struct FactorCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "factors", abstract: "List a user's second factors or withdraw one.",
        subcommands: [List.self, Withdraw.self, DeletePasskey.self, RecoveryCodes.self]
    )

    /// A recovery-code set (docs/mfa-policy.md) is TOTP-shaped on the wire; its id tells it apart.
    static func kind(_ factor: JSONValue) -> String {
        if factor["mfaEnrollmentId"]?.stringValue?.hasPrefix("recovery-") == true { return "recovery codes" }
        return factor["totpInfo"] != nil ? "totp" : "sms"
    }

    static func printPasskeys(_ user: JSONValue) {
        guard case .array(let passkeys)? = user["passkeyInfo"], !passkeys.isEmpty else { return }
        Output.table(
            [["PASSKEY", "NAME"]] + passkeys.map { [Output.text($0["credentialId"]), Output.text($0["name"])] }
        )
    }

    static func printFactors(_ user: JSONValue) {
        guard case .array(let factors)? = user["mfaInfo"], !factors.isEmpty else { return Output.line("no second factors") }
        Output.table(
            [["ENROLLMENT", "KIND", "DISPLAY NAME", "PHONE", "ENROLLED"]]
                + factors.map { factor in
                    [
                        Output.text(factor["mfaEnrollmentId"]), FactorCommands.kind(factor),
                        Output.text(factor["displayName"]), Output.text(factor["phoneInfo"]), Output.text(factor["enrolledAt"]),
                    ]
                }
        )
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a user's second factors.")
        @OptionGroup var gateway: GatewayOptions
        @Argument(help: "The user's id.") var uid: String

        func run() async throws {
            let user = try await gateway.withClient { try await UserCommands.lookup(uid: uid, email: nil, phone: nil, with: $0) }
            if gateway.json { return Output.json(user["mfaInfo"] ?? []) }
            FactorCommands.printFactors(user)
            FactorCommands.printPasskeys(user)
        }
    }

    struct Withdraw: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove one of a user's second factors (say, a lost phone) and end the sessions it started."
        )
        @OptionGroup var gateway: GatewayOptions
        @Argument(help: "The user's id.") var uid: String
        @Argument(help: "The factor's enrollment id (see `factors list`).") var enrollmentId: String

        func run() async throws {
            let answer = try await gateway.withClient {
                try await $0.admin(
                    .POST, gateway.scopePath("v2") + "/accounts:withdrawMfaEnrollment",
                    body: ["localId": .string(uid), "mfaEnrollmentId": .string(enrollmentId)]
                )
            }
            if gateway.json { return Output.json(answer) }
            Output.line("withdrew \(enrollmentId)")
            FactorCommands.printFactors(answer)
        }
    }

    struct DeletePasskey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-passkey",
            abstract: "Remove one of a user's passkeys (say, a lost phone's) and end the sessions it started."
        )
        @OptionGroup var gateway: GatewayOptions
        @Argument(help: "The user's id.") var uid: String
        @Argument(help: "The passkey's credential id (see `factors list`).") var credentialId: String

        func run() async throws {
            let answer = try await gateway.withClient {
                try await $0.admin(
                    .POST, gateway.scopePath("v1") + "/accounts:update",
                    body: ["localId": .string(uid), "deletePasskey": [.string(credentialId)]]
                )
            }
            if gateway.json { return Output.json(answer) }
            Output.line("deleted passkey \(credentialId)")
        }
    }

    struct RecoveryCodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recovery-codes", abstract: "How many recovery codes a user has left (never the codes)."
        )
        @OptionGroup var gateway: GatewayOptions
        @Argument(help: "The user's id.") var uid: String

        func run() async throws {
            let answer = try await gateway.withClient {
                try await $0.admin(.POST, gateway.scopePath("v2") + "/accounts/mfaRecoveryCodes:lookup", body: ["localId": .string(uid)])
            }
            if gateway.json { return Output.json(answer) }
            guard answer["mfaEnrollmentId"] != nil else { return Output.line("no recovery codes") }
            Output.line("\(Output.text(answer["remaining"])) recovery codes left (generated \(Output.text(answer["generatedAt"])))")
        }
    }
}
