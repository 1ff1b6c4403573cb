import ArgumentParser
import JSONRPC
import NIOHTTP1

/// `mfa-admin tenants list|show|create|delete`: `/v2/projects/{p}/tenants`.
struct TenantCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants", abstract: "List, show, create and delete the project's tenants.",
        subcommands: [List.self, Show.self, Create.self, Delete.self]
    )

    static func id(of tenant: JSONValue) -> String {
        Output.text(tenant["name"]).split(separator: "/").last.map(String.init) ?? ""
    }

    static func printTenants(_ tenants: [JSONValue]) {
        Output.table(
            [["TENANT", "DISPLAY NAME", "PASSWORD SIGN-IN", "MFA"]]
                + tenants.map { tenant in
                    [
                        id(of: tenant), Output.text(tenant["displayName"]), Output.text(tenant["allowPasswordSignup"] ?? .bool(false)),
                        Output.text(tenant["mfaConfig"]?["state"] ?? .string("DISABLED")),
                    ]
                }
        )
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tenants.")
        @OptionGroup var gateway: GatewayOptions

        func run() async throws {
            let answer = try await gateway.withClient { client in
                var tenants: [JSONValue] = []
                var pageToken: String?
                repeat {
                    var query = ["pageSize": "100"]
                    if let pageToken { query["pageToken"] = pageToken }
                    let page = try await client.admin(.GET, gateway.scopePath("v2") + "/tenants", query: query)
                    if case .array(let items)? = page["tenants"] { tenants += items }
                    pageToken = page["nextPageToken"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
                } while pageToken != nil
                return tenants
            }
            if gateway.json { return Output.json(["tenants": .array(answer)]) }
            TenantCommands.printTenants(answer)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one tenant's settings as JSON.")
        @OptionGroup var gateway: GatewayOptions
        @Argument(help: "The tenant's id.") var tenantId: String

        func run() async throws {
            let path = gateway.scopePath("v2") + "/tenants/" + GatewayOptions.segment(tenantId)
            Output.json(try await gateway.withClient { try await $0.admin(.GET, path) })
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a tenant; prints its id.")
        @OptionGroup var gateway: GatewayOptions
        @Option(help: "What the tenant is called (4 to 20 characters, a letter first).") var displayName: String
        @Flag(help: "Let the tenant's users sign in with email and password.") var allowPasswordSignup = false
        @Flag(help: "Turn on TOTP and SMS second factors for the tenant.") var enableMFA = false

        func run() async throws {
            var body: [String: JSONValue] = ["displayName": .string(displayName), "allowPasswordSignup": .bool(allowPasswordSignup)]
            if enableMFA { body["mfaConfig"] = MFAConfigCommands.enabledBoth }
            let created = try await gateway.withClient {
                try await $0.admin(.POST, gateway.scopePath("v2") + "/tenants", body: .object(body))
            }
            if gateway.json { return Output.json(created) }
            Output.line(TenantCommands.id(of: created))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a tenant and its users.")
        @OptionGroup var gateway: GatewayOptions
        @Argument(help: "The tenant's id.") var tenantId: String

        func run() async throws {
            let path = gateway.scopePath("v2") + "/tenants/" + GatewayOptions.segment(tenantId)
            _ = try await gateway.withClient { try await $0.admin(.DELETE, path) }
            if !gateway.json { Output.line("deleted \(tenantId)") }
        }
    }
}
