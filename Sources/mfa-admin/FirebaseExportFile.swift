import CSV
import Foundation
import JSONRPC

/// The users of a `firebase auth:export` file, as `accounts:batchCreate` takes them. JSON:
/// `{"users": [...]}` with the export's member names (`lastSignedInAt` is the API's `lastLoginAt`);
/// CSV: the export's 52 columns without a header (firebase-tools' `accountExporter`), of which
/// the account's own are read. Provider links come along from a JSON export (`providerUserInfo`:
/// Google, Apple and OpenID Connect users keep signing in with them once the provider is configured);
/// a CSV export's provider columns are not read: their users are counted and sign in another way.
struct FirebaseExportFile {
    let users: [JSONValue]
    /// Users of a CSV export that had at least one provider link (Google, Apple…), left out.
    let usersWithProviders: Int

    /// The members of a user that go to `batchCreate` as they are.
    static let members = [
        "localId", "email", "emailVerified", "passwordHash", "salt", "displayName", "photoUrl", "createdAt", "lastLoginAt",
        "phoneNumber", "disabled", "customAttributes", "mfaInfo", "providerUserInfo",
    ]

    init(path: String, format: String?) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure.message("cannot read \(path)")
        }
        let kind = format ?? (path.lowercased().hasSuffix(".csv") ? "csv" : "json")
        switch kind {
        case "json": (users, usersWithProviders) = try Self.json(data, path: path)
        case "csv": (users, usersWithProviders) = try Self.csv(data, path: path)
        default: throw CommandFailure.message("--format must be json or csv")
        }
    }

    private static func json(_ data: Data, path: String) throws -> ([JSONValue], Int) {
        guard let document = try? JSONCoding.parse(Array(data)), case .array(let entries)? = document["users"] else {
            throw CommandFailure.message("\(path) is not a firebase auth:export JSON file ({\"users\": [...]})")
        }
        let users = entries.map { entry -> JSONValue in
            var user: [String: JSONValue] = [:]
            for name in members { if let value = entry[name], value != .null { user[name] = value } }
            if let signedIn = entry["lastSignedInAt"], user["lastLoginAt"] == nil { user["lastLoginAt"] = signedIn }
            for name in ["createdAt", "lastLoginAt"] {
                if case .int(let number)? = user[name] { user[name] = .string(String(number)) }
            }
            return .object(user)
        }
        return (users, 0)
    }

    private static func csv(_ data: Data, path: String) throws -> ([JSONValue], Int) {
        let reader: CSVReader
        do {
            reader = try CSVReader(string: String(decoding: data, as: UTF8.self), hasHeaderRow: false)
        } catch {
            throw CommandFailure.message("\(path) is not CSV: \(error)")
        }
        // Column of each member in the export's layout; 7-22 and 28-51 are provider links.
        let columns: [(String, Int)] = [
            ("localId", 0), ("email", 1), ("passwordHash", 3), ("salt", 4), ("displayName", 5), ("photoUrl", 6),
            ("createdAt", 23), ("lastLoginAt", 24), ("phoneNumber", 25), ("customAttributes", 27),
        ]
        let providerColumns = Array(7...22) + Array(28...51)
        var users: [JSONValue] = []
        var withProviders = 0
        var line = 0
        while let row = reader.next() {
            line += 1
            if row.allSatisfy(\.isEmpty) { continue }
            guard row.count >= 27 else { throw CommandFailure.message("\(path):\(line): \(row.count) columns, not firebase auth:export's") }
            var user: [String: JSONValue] = [:]
            for (name, column) in columns where column < row.count && !row[column].isEmpty { user[name] = .string(row[column]) }
            for (name, column) in [("emailVerified", 2), ("disabled", 26)] where column < row.count {
                user[name] = .bool(row[column].lowercased() == "true")
            }
            if providerColumns.contains(where: { $0 < row.count && !row[$0].isEmpty }) { withProviders += 1 }
            users.append(.object(user))
        }
        return (users, withProviders)
    }
}
