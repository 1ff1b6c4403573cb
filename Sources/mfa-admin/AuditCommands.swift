import ArgumentParser
import Foundation
import JSONRPC
import NIOHTTP1

/// `mfa-admin audit list|tail`: the audit trail (`/v2/projects/{p}[/tenants/{t}]/securityEvents`).
struct AuditCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Read the audit trail: security events, newest last.", subcommands: [List.self, Tail.self]
    )

    struct Filters: ParsableArguments {
        @Option(help: "Only this user's events.") var user: String?
        @Option(name: .customLong("type"), help: "Only events of this type (repeatable), e.g. factor.withdrawn.")
        var types: [String] = []

        func query(limit: Int, since: String?) -> [String: String] {
            var query = ["pageSize": String(limit)]
            if let user { query["localId"] = user }
            if !types.isEmpty { query["eventTypes"] = types.joined(separator: ",") }
            if let since { query["startTime"] = since }
            return query
        }
    }

    /// One event per line: time, type, user, actor, then the details.
    static func line(_ event: JSONValue) -> String {
        var details: [String] = []
        if case .object(let members)? = event["details"] {
            details = members.sorted { $0.key < $1.key }.map { "\($0.key)=\(Output.text($0.value))" }
        }
        return
            ([
                Output.text(event["time"]), Output.text(event["type"]), "user=\(Output.text(event["localId"]))",
                "actor=\(Output.text(event["actor"]))",
            ] + details).joined(separator: " ")
    }

    static func events(_ page: JSONValue) -> [JSONValue] {
        guard case .array(let events)? = page["events"] else { return [] }
        return events.reversed()  // the API answers newest first
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the latest events.")
        @OptionGroup var gateway: GatewayOptions
        @OptionGroup var filters: Filters
        @Option(help: "At most this many events (1 to 1000).") var limit = 50
        @Option(help: "Only events at or after this RFC 3339 time.") var since: String?

        func run() async throws {
            let path = gateway.scopePath("v2") + "/securityEvents"
            let page = try await gateway.withClient { try await $0.admin(.GET, path, query: filters.query(limit: limit, since: since)) }
            if gateway.json { return Output.json(page) }
            for event in AuditCommands.events(page) { Output.line(AuditCommands.line(event)) }
        }
    }

    struct Tail: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the latest events, then new ones as they come (Ctrl-C stops).")
        @OptionGroup var gateway: GatewayOptions
        @OptionGroup var filters: Filters
        @Option(help: "How many past events to print first.") var lines = 10
        @Option(help: "Seconds between polls.") var interval = 2.0

        func run() async throws {
            let path = gateway.scopePath("v2") + "/securityEvents"
            try await gateway.withClient { client in
                var seen = Set<String>()
                var since: String?
                var first = true
                while !Task.isCancelled {
                    let page = try await client.admin(.GET, path, query: filters.query(limit: first ? max(lines, 1) : 1000, since: since))
                    var fresh = AuditCommands.events(page).filter { !seen.contains(Self.key($0)) }
                    if first { fresh = Array(fresh.suffix(lines)) }
                    for event in AuditCommands.events(page) { seen.insert(Self.key(event)) }
                    for event in fresh {
                        if gateway.json { Output.json(event) } else { Output.line(AuditCommands.line(event)) }
                    }
                    // Events at the same microsecond as the newest seen come again; `seen` drops them.
                    if let newest = AuditCommands.events(page).last?["time"]?.stringValue { since = newest }
                    first = false
                    try await Task.sleep(for: .seconds(interval))
                }
            }
        }

        static func key(_ event: JSONValue) -> String {
            "\(Output.text(event["source"]))/\(Output.text(event["id"]))"
        }
    }
}
