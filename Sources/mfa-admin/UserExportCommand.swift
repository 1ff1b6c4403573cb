import ArgumentParser
import CSV
import Foundation
import JSONRPC

/// `mfa-admin users export FILE`: the project's (or a tenant's) users in `firebase auth:export`'s
/// JSON or CSV format (by the file's extension, or `--format`), with their password hashes, and the hash parameters that import them again (into
/// Firebase with `firebase auth:import`, or here with `mfa-admin users import`). A user whose hash
/// is still an imported one (no sign-in since) is written without it.
struct UserExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export users in firebase auth:export's JSON or CSV format, with their password hashes and the parameters to import them."
    )

    @OptionGroup var gateway: GatewayOptions
    @Argument(help: "The file to write (.json or .csv).") var file: String
    @Option(help: "json or csv (default: by the file's extension).") var format: String?

    func validate() throws {
        if let format, !["json", "csv"].contains(format) { throw ValidationError("--format must be json or csv") }
    }

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
        let csv = (format ?? (file.lowercased().hasSuffix(".csv") ? "csv" : "json")) == "csv"
        let contents = csv ? try Self.csv(exported) : try JSONCoding.encode(JSONValue.object(["users": .array(exported)]))
        guard FileManager.default.createFile(atPath: file, contents: contents, attributes: [.posixPermissions: 0o600]) else {
            throw CommandFailure.message("cannot write \(file)")
        }
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

    /// The export's CSV: no header, 52 columns per user in firebase-tools' layout (provider columns
    /// empty) and the trailing comma its files end each line with.
    static func csv(_ users: [JSONValue]) throws -> Data {
        let stream = OutputStream(toMemory: ())
        stream.open()
        let writer = try CSVWriter(stream: stream)
        for user in users {
            let own = ["localId", "email", "emailVerified", "passwordHash", "salt", "displayName", "photoUrl"].map { Output.text(user[$0]) }
            let tail = ["createdAt", "lastSignedInAt", "phoneNumber", "disabled", "customAttributes"].map { Output.text(user[$0]) }
            try writer.write(row: own + Array(repeating: "", count: 16) + tail + Array(repeating: "", count: 24) + [""])
        }
        writer.stream.close()
        guard let data = writer.stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data else {
            throw CommandFailure.message("cannot write the CSV")
        }
        return data + Data("\n".utf8)
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
