import ArgumentParser
import Foundation
import JSONRPC

/// `mfa-admin users unenrolled`: who has no second factor yet (docs/mfa-policy.md). Under MANDATORY
/// each one's grace period ends at the later of their creation and `mandatorySince`, plus
/// `enrollmentGracePeriod`: after it they cannot sign in until an operator adds a factor.
struct UnenrolledUsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unenrolled", abstract: "List users without a second factor and, under MANDATORY, when their grace period ends."
    )
    @OptionGroup var gateway: GatewayOptions

    func run() async throws {
        let (users, mfa) = try await gateway.withClient { client -> ([JSONValue], JSONValue?) in
            let (path, member) = MFAConfigCommands.location(gateway)
            let mfa = try await client.admin(.GET, path)[member]
            var found: [JSONValue] = []
            var token: String?
            repeat {
                var query = ["maxResults": "1000"]
                if let token { query["nextPageToken"] = token }
                let page = try await client.admin(.GET, gateway.scopePath("v1") + "/accounts:batchGet", query: query)
                if case .array(let batch)? = page["users"] { found += batch.filter { UserCommands.factorCount($0) == 0 } }
                token = page["nextPageToken"]?.stringValue
            } while token?.isEmpty == false
            return (found, mfa)
        }
        let graceEnds = users.map { Self.graceEnd(of: $0, under: mfa) }
        if gateway.json {
            return Output.json(
                .array(
                    zip(users, graceEnds).map { user, end in
                        var entry: [String: JSONValue] = ["localId": user["localId"] ?? .null, "email": user["email"] ?? .null]
                        if let end { entry["graceEndsAt"] = .string(Self.rfc3339(end)) }
                        return .object(entry)
                    }
                )
            )
        }
        guard !users.isEmpty else { return Output.line("every user has a second factor") }
        Output.table(
            [["UID", "EMAIL", "CREATED", "GRACE ENDS"]]
                + zip(users, graceEnds).map { user, end in
                    [
                        Output.text(user["localId"]), Output.text(user["email"]),
                        user["createdAt"]?.stringValue.flatMap(Double.init).map { Self.rfc3339($0 / 1000) } ?? "-",
                        end.map { Self.rfc3339($0) + ($0 < Date().timeIntervalSince1970 ? " (passed)" : "") } ?? "-",
                    ]
                }
        )
    }

    /// Seconds since the epoch, or `nil` when the scope is not MANDATORY.
    static func graceEnd(of user: JSONValue, under mfa: JSONValue?) -> Double? {
        guard mfa?["state"]?.stringValue == "MANDATORY" else { return nil }
        let created = (user["createdAt"]?.stringValue.flatMap(Double.init) ?? 0) / 1000
        let since = mfa?["mandatorySince"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0)?.timeIntervalSince1970 } ?? 0
        let grace = mfa?["enrollmentGracePeriod"]?.stringValue.flatMap { Double($0.dropLast()) } ?? 86_400
        return max(created, since) + grace
    }

    static func rfc3339(_ seconds: Double) -> String { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds)) }
}
