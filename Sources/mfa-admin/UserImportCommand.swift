import ArgumentParser
import Foundation
import JSONRPC

/// `mfa-admin users import FILE`: a `firebase auth:export` file into this server, with the hash
/// parameters `firebase auth:import` takes (the project's, from the Firebase console), in batches
/// of `accounts:batchCreate`. Progress and each refused user go to standard error; an interrupted
/// import goes on with `--resume-from` the count it printed.
struct UserImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import users from a firebase auth:export file (JSON or CSV), with their password hashes."
    )

    @OptionGroup var gateway: GatewayOptions
    @Argument(help: "The export file (.json or .csv).") var file: String
    @Option(help: "json or csv (default: by the file's extension).") var format: String?
    @Option(
        name: .customLong("hash-algo"),
        help:
            "The hashes' algorithm: SCRYPT (Firebase's), STANDARD_SCRYPT, BCRYPT, PBKDF_SHA1, PBKDF2_SHA256, HMAC_SHA512/256/1/MD5, MD5, SHA1, SHA256, SHA512."
    )
    var hashAlgorithm: String?
    @Option(name: .customLong("hash-key"), help: "Base64: SCRYPT's signer key, or the HMAC key.") var hashKey: String?
    @Option(name: .customLong("salt-separator"), help: "Base64: SCRYPT's salt separator.") var saltSeparator: String?
    @Option(help: "SCRYPT's rounds, or the iterations of PBKDF and MD5/SHA*.") var rounds: Int?
    @Option(name: .customLong("mem-cost"), help: "SCRYPT's memory cost; STANDARD_SCRYPT's N.") var memoryCost: Int?
    @Option(help: "STANDARD_SCRYPT's p.") var parallelization: Int?
    @Option(name: .customLong("block-size"), help: "STANDARD_SCRYPT's r.") var blockSize: Int?
    @Option(name: .customLong("dk-len"), help: "STANDARD_SCRYPT's key length.") var dkLen: Int?
    @Option(name: .customLong("hash-input-order"), help: "SALT_FIRST or PASSWORD_FIRST.") var hashInputOrder: String?
    @Option(name: .customLong("batch-size"), help: "Users per request (1 to 1000).") var batchSize = 1000
    @Option(name: .customLong("resume-from"), help: "Skip the file's first N users (what an interrupted import printed).")
    var resumeFrom = 0

    func validate() throws {
        guard (1...1000).contains(batchSize) else { throw ValidationError("--batch-size must be 1 to 1000") }
        guard resumeFrom >= 0 else { throw ValidationError("--resume-from must not be negative") }
        if let hashInputOrder, !["SALT_FIRST", "PASSWORD_FIRST"].contains(hashInputOrder) {
            throw ValidationError("--hash-input-order must be SALT_FIRST or PASSWORD_FIRST")
        }
    }

    /// The request members that say how the hashes were made.
    var hashMembers: [String: JSONValue] {
        guard let hashAlgorithm else { return [:] }
        var members: [String: JSONValue] = ["hashAlgorithm": .string(hashAlgorithm.uppercased())]
        if let hashKey { members["signerKey"] = .string(hashKey) }
        if let saltSeparator { members["saltSeparator"] = .string(saltSeparator) }
        if let rounds { members["rounds"] = .int(Int64(rounds)) }
        if let memoryCost {
            // firebase auth:import takes STANDARD_SCRYPT's N as its memory cost too.
            members[hashAlgorithm.uppercased() == "STANDARD_SCRYPT" ? "cpuMemCost" : "memoryCost"] = .int(Int64(memoryCost))
        }
        if let parallelization { members["parallelization"] = .int(Int64(parallelization)) }
        if let blockSize { members["blockSize"] = .int(Int64(blockSize)) }
        if let dkLen { members["dkLen"] = .int(Int64(dkLen)) }
        if let hashInputOrder {
            members["passwordHashOrder"] = .string(hashInputOrder == "SALT_FIRST" ? "SALT_AND_PASSWORD" : "PASSWORD_AND_SALT")
        }
        return members
    }

    func run() async throws {
        let export = try FirebaseExportFile(path: file, format: format)
        if hashAlgorithm == nil, export.users.contains(where: { $0["passwordHash"] != nil }) {
            throw CommandFailure.message("the file has password hashes: name their algorithm and parameters (--hash-algo …)")
        }
        let total = export.users.count
        var refused: [JSONValue] = []
        var position = min(resumeFrom, total)
        try await gateway.withClient { client in
            while position < total {
                let batch = Array(export.users[position..<min(position + batchSize, total)])
                var body = hashMembers
                body["users"] = .array(batch)
                let answer: JSONValue
                do {
                    answer = try await client.admin(.POST, gateway.scopePath("v1") + "/accounts:batchCreate", body: .object(body))
                } catch {
                    Self.progress("stopped at user \(position) of \(total): \(error)")
                    throw CommandFailure.message("resume with --resume-from \(position)")
                }
                if case .array(let errors)? = answer["error"] {
                    for entry in errors {
                        guard case .int(let offset)? = entry["index"] else { continue }
                        let index = position + Int(offset)
                        let uid = index < total ? Output.text(export.users[index]["localId"]) : ""
                        let message = Output.text(entry["message"])
                        Self.progress("user \(index) (\(uid)): \(message)")
                        refused.append(["index": .int(Int64(index)), "localId": .string(uid), "message": .string(message)])
                    }
                }
                position += batch.count
                Self.progress(
                    "imported \(position - resumeFrom - refused.count) of \(total - min(resumeFrom, total)) (\(refused.count) refused; next: \(position))"
                )
            }
        }
        let imported = total - min(resumeFrom, total) - refused.count
        if gateway.json {
            Output.json([
                "imported": .int(Int64(imported)), "refused": .array(refused),
                "usersWithProviderLinks": .int(Int64(export.usersWithProviders)),
            ])
        } else {
            Output.line("Imported \(imported) users; \(refused.count) refused.")
            if export.usersWithProviders > 0 {
                Output.line(
                    "\(export.usersWithProviders) users had provider links (Google, Apple…), which are not imported: "
                        + "they sign in with a password, a phone number or an email link."
                )
            }
        }
        if !refused.isEmpty { throw ExitCode(1) }
    }

    static func progress(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
