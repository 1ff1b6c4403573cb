import ArgumentParser
import Foundation
import JSONRPC

/// `mfa-admin users export FILE`: the project's (or a tenant's) users in `firebase auth:export`'s
/// JSON format, with their password hashes, and the hash parameters that import them again (into
/// Firebase with `firebase auth:import`, or here with `mfa-admin users import`). A user whose hash
/// is still an imported one (no sign-in since) is written without it.
struct UserExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export users in firebase auth:export's JSON format, with their password hashes and the parameters to import them."
    )

    @OptionGroup var gateway: GatewayOptions
    @Argument(help: "The file to write (JSON).") var file: String

    /// The members `firebase auth:export` writes, in its order (`lastSignedInAt` for `lastLoginAt`).
    static let members = [
        "localId", "email", "emailVerified", "passwordHash", "salt", "displayName", "photoUrl", "lastSignedInAt", "createdAt",
        "phoneNumber", "disabled", "customAttributes", "mfaInfo",
    ]
    static let redacted = "UkVEQUNURUQ="

    func run() async throws {
        var exported: [JSONValue] = []
        var withoutHash = 0
        let hashConfig = try await gateway.withClient { client -> JSONValue? in
            let config = try await client.admin(.GET, "/v2/projects/\(GatewayOptions.segment(gateway.project))/config")
            var token: String?
            repeat {
                var query = ["maxResults": "1000"]
                if let token { query["nextPageToken"] = token }
                let page = try await client.admin(.GET, gateway.scopePath("v1") + "/accounts:batchGet", query: query)
                if case .array(let users)? = page["users"] {
                    for user in users {
                        let (entry, hashed) = Self.entry(user)
                        if !hashed, user["passwordHash"] != nil { withoutHash += 1 }
                        exported.append(entry)
                    }
                }
                token = page["nextPageToken"]?.stringValue
                FileHandle.standardError.write(Data("exported \(exported.count) users\n".utf8))
            } while token?.isEmpty == false
            return config["signIn"]?["hashConfig"]
        }
        let document = JSONValue.object(["users": .array(exported)])
        guard
            FileManager.default.createFile(atPath: file, contents: try JSONCoding.encode(document), attributes: [.posixPermissions: 0o600])
        else { throw CommandFailure.message("cannot write \(file)") }
        Output.line("Exported \(exported.count) users to \(file).")
        if let hashConfig {
            Output.line(
                "Hash parameters (keep the key secret): --hash-algo=\(Output.text(hashConfig["algorithm"])) "
                    + "--hash-key=\(Output.text(hashConfig["signerKey"])) --salt-separator=\(Output.text(hashConfig["saltSeparator"])) "
                    + "--rounds=\(Output.text(hashConfig["rounds"])) --mem-cost=\(Output.text(hashConfig["memoryCost"]))"
            )
        }
        if withoutHash > 0 {
            Output.line("\(withoutHash) users have no exportable password hash yet (imported, not signed in since).")
        }
    }

    /// One user in the export's shape; whether it carries its password hash.
    static func entry(_ user: JSONValue) -> (JSONValue, Bool) {
        var entry: [String: JSONValue] = [:]
        for name in members {
            let source = name == "lastSignedInAt" ? "lastLoginAt" : name
            if let value = user[source], value != .null { entry[name] = value }
        }
        // As firebase auth:export writes them: standard base64.
        for name in ["passwordHash", "salt"] {
            if case .string(let text)? = entry[name] {
                entry[name] = .string(text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/"))
            }
        }
        let hashed = entry["passwordHash"] != nil && entry["passwordHash"] != .string(redacted)
        if !hashed { (entry["passwordHash"], entry["salt"]) = (nil, nil) }
        return (.object(entry), hashed)
    }
}
