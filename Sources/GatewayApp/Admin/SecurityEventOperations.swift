import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import ServiceTransport

/// `GET /v2/projects/{p}[/tenants/{t}]/securityEvents` (this server's admin operation,
/// `identitytoolkit/extensions.json`): a scope's audit trail, newest first, merged from the three
/// data services (each writes the events of the changes it makes). Filters: `localId`,
/// `eventTypes` (comma-separated), `startTime` and `endTime` (RFC 3339); `pageSize` (1-1000, 100 by
/// default) and `pageToken` (the previous page's `nextPageToken`).
struct SecurityEventOperations: Sendable {
    /// Every data service: each keeps its own trail (`ListSecurityEvents`, which every one serves).
    let peers: [RPCClient]
    let settings: CachedSettings

    /// Where the next page starts: the last event's place in the merged order.
    struct Cursor: Codable {
        let at: Int64
        let source: String
        let id: Int64
    }

    func list(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        return try await page(projectId: scope.projectId, tenantId: scope.tenantId, query: request.query, requestID: request.requestID)
    }

    /// One page of the scope's merged trail (an unknown tenant is `TENANT_NOT_FOUND`).
    func page(projectId: String, tenantId: String?, query: [String: String], requestID: String) async throws -> JSONValue {
        let scope = (projectId: projectId, tenantId: tenantId)
        _ = try await settings.enabled(projectId: projectId, tenantId: tenantId, requestID: requestID)
        let pageSize =
            try query["pageSize"].map { text -> Int in
                guard let size = Int(text) else { throw IdentityToolkitError.invalidPayload("pageSize must be an integer") }
                return min(max(size, 1), 1000)
            } ?? 100
        var params = ListSecurityEvents.Params(
            projectId: scope.projectId, tenantId: scope.tenantId, localId: query["localId"].flatMap { $0.isEmpty ? nil : $0 },
            types: query["eventTypes"].map { $0.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) } },
            sinceMicros: try query["startTime"].map { try Self.micros($0, name: "startTime") }, limit: pageSize
        )
        if let end = query["endTime"] {
            (params.beforeMicros, params.beforeSource, params.beforeId) = (try Self.micros(end, name: "endTime"), "", 0)
        }
        if let token = query["pageToken"], !token.isEmpty {
            guard let data = Data(base64Encoded: token), let cursor = try? JSONDecoder().decode(Cursor.self, from: data) else {
                throw IdentityToolkitError.invalidPayload("pageToken is not one this server gave")
            }
            (params.beforeMicros, params.beforeSource, params.beforeId) = (cursor.at, cursor.source, cursor.id)
        }
        let asked = params
        let pages = try await withThrowingTaskGroup(of: [SecurityEvent].self) { group in
            for peer in peers {
                group.addTask { try await PeerCall.call(peer, ListSecurityEvents.self, asked, requestID: requestID).events }
            }
            return try await group.reduce(into: [SecurityEvent]()) { $0 += $1 }
        }
        let merged = pages.sorted { ($0.atMicros, $0.source, $0.id) > ($1.atMicros, $1.source, $1.id) }
        let page = Array(merged.prefix(pageSize))
        var answer: [String: JSONValue] = ["events": try JSONCoding.value(of: page)]
        if merged.count > pageSize || page.count == pageSize, let last = page.last {
            let cursor = try JSONEncoder().encode(Cursor(at: last.atMicros, source: last.source, id: last.id))
            answer["nextPageToken"] = .string(cursor.base64EncodedString())
        }
        return .object(answer)
    }

    static func micros(_ text: String, name: String) throws -> Int64 {
        let parsed =
            (try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: .iso8601))
        guard let parsed else { throw IdentityToolkitError.invalidPayload("\(name) must be an RFC 3339 time") }
        return Int64((parsed.timeIntervalSince1970 * 1_000_000).rounded())
    }
}
