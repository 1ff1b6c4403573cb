import ArgumentParser
import JSONRPC
import NIOHTTP1

/// `mfa-admin users list|lookup|import`: the Admin SDKs' `accounts:batchGet`, `accounts:lookup` and
/// `accounts:batchCreate` (UserImportCommand).
struct UserCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "List users, look one up with their second factors, import and export them (Firebase's format).",
        subcommands: [List.self, Lookup.self, UnenrolledUsersCommand.self, UserImportCommand.self, UserExportCommand.self]
    )

    static func factorCount(_ user: JSONValue) -> Int { count(user["mfaInfo"]) }

    /// The passkeys of a user record (`passkeyInfo`).
    static func passkeyCount(_ user: JSONValue) -> Int { count(user["passkeyInfo"]) }

    private static func count(_ list: JSONValue?) -> Int {
        if case .array(let entries)? = list { return entries.count }
        return 0
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users, oldest first.")
        @OptionGroup var gateway: GatewayOptions
        @Option(help: "At most this many users (1 to 1000).") var limit = 100

        func run() async throws {
            let answer = try await gateway.withClient {
                try await $0.admin(.GET, gateway.scopePath("v1") + "/accounts:batchGet", query: ["maxResults": String(limit)])
            }
            if gateway.json { return Output.json(answer) }
            guard case .array(let users)? = answer["users"] else { return Output.line("no users") }
            Output.table(
                [["UID", "EMAIL", "PHONE", "SECOND FACTORS", "PASSKEYS", "DISABLED"]]
                    + users.map { user in
                        [
                            Output.text(user["localId"]), Output.text(user["email"]), Output.text(user["phoneNumber"]),
                            String(UserCommands.factorCount(user)), String(UserCommands.passkeyCount(user)),
                            Output.text(user["disabled"] ?? .bool(false)),
                        ]
                    }
            )
        }
    }

    struct Lookup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one user, by uid, email or phone number.")
        @OptionGroup var gateway: GatewayOptions
        @Option(help: "The user's id.") var uid: String?
        @Option(help: "The user's email address.") var email: String?
        @Option(help: "The user's phone number (E.164).") var phone: String?

        func validate() throws {
            guard [uid, email, phone].compactMap({ $0 }).count == 1 else {
                throw ValidationError("name the user with exactly one of --uid, --email, --phone")
            }
        }

        func run() async throws {
            let user = try await gateway.withClient { try await UserCommands.lookup(uid: uid, email: email, phone: phone, with: $0) }
            if gateway.json { return Output.json(user) }
            Output.table([
                ["uid", Output.text(user["localId"])], ["email", Output.text(user["email"])],
                ["email verified", Output.text(user["emailVerified"] ?? .bool(false))],
                ["phone", Output.text(user["phoneNumber"])], ["disabled", Output.text(user["disabled"] ?? .bool(false))],
                ["created", Output.text(user["createdAt"])], ["last sign-in", Output.text(user["lastLoginAt"])],
            ])
            Output.line("")
            FactorCommands.printFactors(user)
            FactorCommands.printPasskeys(user)
        }
    }

    /// The one user the request names (`USER_NOT_FOUND` when there is none).
    static func lookup(uid: String?, email: String?, phone: String?, with client: GatewayClient) async throws -> JSONValue {
        var body: [String: JSONValue] = [:]
        if let uid { body["localId"] = [.string(uid)] }
        if let email { body["email"] = [.string(email)] }
        if let phone { body["phoneNumber"] = [.string(phone)] }
        let answer = try await client.admin(.POST, client.options.scopePath("v1") + "/accounts:lookup", body: .object(body))
        guard case .array(let users)? = answer["users"], let user = users.first else {
            throw CommandFailure.message("USER_NOT_FOUND")
        }
        return user
    }
}
