import ArgumentParser
import JSONRPC
import NIOHTTP1

/// `mfa-admin mfa show|set`: the MFA settings of the project (`/v2/projects/{p}/config`, member
/// `mfa`) or of a tenant (`/v2/projects/{p}/tenants/{t}`, member `mfaConfig`).
struct MFAConfigCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa", abstract: "Show and change the second-factor settings of the project or a tenant.",
        subcommands: [Show.self, Set.self]
    )

    /// Both kinds on, TOTP accepting the codes of one step either side.
    static let enabledBoth: JSONValue = [
        "state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
        "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 1]]],
    ]

    /// The settings document's path and its MFA member's name, for the chosen scope.
    static func location(_ gateway: GatewayOptions) -> (path: String, member: String) {
        guard let tenant = gateway.tenant else { return (gateway.scopePath("v2") + "/config", "mfa") }
        let project = GatewayOptions(projectOnly: gateway)
        return (project.scopePath("v2") + "/tenants/" + GatewayOptions.segment(tenant), "mfaConfig")
    }

    static func describe(_ mfa: JSONValue?) {
        let totp = totpConfig(mfa)
        var sms = false
        if case .array(let providers)? = mfa?["enabledProviders"] { sms = providers.contains(.string("PHONE_SMS")) }
        Output.table([
            ["state", Output.text(mfa?["state"] ?? .string("DISABLED"))],
            ["sms", sms ? "enabled" : "off"],
            ["totp", totp?["state"]?.stringValue == "ENABLED" ? "enabled" : "off"],
            ["adjacent intervals", Output.text(totp?["totpProviderConfig"]?["adjacentIntervals"] ?? .int(5))],
            // docs/mfa-policy.md
            ["grace period", Output.text(mfa?["enrollmentGracePeriod"] ?? .string("-"))],
            ["mandatory since", Output.text(mfa?["mandatorySince"] ?? .string("-"))],
            ["step-up", Output.text(mfa?["stepUpMaxAge"] ?? .string("off"))],
        ])
    }

    static func totpConfig(_ mfa: JSONValue?) -> JSONValue? {
        guard case .array(let configs)? = mfa?["providerConfigs"] else { return nil }
        return configs.first { $0["totpProviderConfig"] != nil }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the second-factor settings.")
        @OptionGroup var gateway: GatewayOptions

        func run() async throws {
            let (path, member) = MFAConfigCommands.location(gateway)
            let document = try await gateway.withClient { try await $0.admin(.GET, path) }
            if gateway.json { return Output.json(document[member] ?? [:]) }
            MFAConfigCommands.describe(document[member])
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the second-factor settings; what is not named keeps its value.",
            discussion: "Example: mfa-admin mfa set --state ENABLED --sms --totp --adjacent-intervals 1"
        )
        @OptionGroup var gateway: GatewayOptions
        @Option(help: "ENABLED, DISABLED or MANDATORY.") var state: String?
        @Flag(inversion: .prefixedNo, help: "SMS second factors.") var sms: Bool?
        @Flag(inversion: .prefixedNo, help: "TOTP (authenticator app) second factors.") var totp: Bool?
        @Option(help: "TOTP steps accepted either side of now (0 to 10).") var adjacentIntervals: Int?
        @Option(help: "MANDATORY: seconds a user without a factor may still sign in to enroll one (docs/mfa-policy.md).")
        var gracePeriod: Int?
        @Option(help: "Seconds since a second factor that sensitive changes accept (60 to 86400); 0 turns step-up off.")
        var stepUp: Int?

        func validate() throws {
            if let state, !["ENABLED", "DISABLED", "MANDATORY"].contains(state) {
                throw ValidationError("--state must be ENABLED, DISABLED or MANDATORY")
            }
            if state == nil, sms == nil, totp == nil, adjacentIntervals == nil, gracePeriod == nil, stepUp == nil {
                throw ValidationError(
                    "name at least one of --state, --sms/--no-sms, --totp/--no-totp, --adjacent-intervals, --grace-period, --step-up"
                )
            }
        }

        func run() async throws {
            let (path, member) = MFAConfigCommands.location(gateway)
            let updated = try await gateway.withClient { client in
                let current = try await client.admin(.GET, path)[member]?.objectValue ?? [:]
                let mfa = merged(current)
                return try await client.admin(.PATCH, path, query: ["updateMask": member], body: [member: .object(mfa)])
            }
            if gateway.json { return Output.json(updated[member] ?? [:]) }
            MFAConfigCommands.describe(updated[member])
        }

        private func merged(_ current: [String: JSONValue]) -> [String: JSONValue] {
            var mfa = current
            if let state { mfa["state"] = .string(state) }
            if let sms { mfa["enabledProviders"] = sms ? ["PHONE_SMS"] : [] }
            if let gracePeriod { mfa["enrollmentGracePeriod"] = .string("\(gracePeriod)s") }
            if let stepUp { mfa["stepUpMaxAge"] = stepUp == 0 ? nil : .string("\(stepUp)s") }
            mfa["mandatorySince"] = nil
            if totp != nil || adjacentIntervals != nil {
                let existing = MFAConfigCommands.totpConfig(.object(current))
                let enabled = totp ?? (existing?["state"]?.stringValue == "ENABLED")
                let intervals =
                    adjacentIntervals.map { JSONValue.int(Int64($0)) }
                    ?? existing?["totpProviderConfig"]?["adjacentIntervals"] ?? .int(5)
                mfa["providerConfigs"] = [
                    ["state": .string(enabled ? "ENABLED" : "DISABLED"), "totpProviderConfig": ["adjacentIntervals": intervals]]
                ]
            }
            return mfa
        }
    }
}

extension GatewayOptions {
    /// The same options without the tenant: for paths that name the tenant themselves.
    init(projectOnly other: GatewayOptions) {
        self = other
        self.tenant = nil
    }
}
