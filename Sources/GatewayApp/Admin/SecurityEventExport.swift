import Foundation
import HTTPTypes
import Hummingbird
import IdentityToolkit
import JSONRPC
import Logging
import NIOCore

/// `GET /v2/projects/{p}[/tenants/{t}]/securityEvents:export`: the audit trail as JSON lines
/// (`application/x-ndjson`, one event per line, newest first), with the list's filters, for an
/// auditor's tools. At most ``maximumEvents`` per answer; when more match, the
/// `X-Next-Page-Token` header continues where it stopped (as `pageToken`). Admin credential only.
struct SecurityEventExport: Sendable {
    let events: SecurityEventOperations
    let credentials: CredentialResolver

    static let maximumEvents = 50_000

    func respond(
        _ request: Request, path: String, listener: ListenerRole, requestID: String, logger: Logger
    ) async -> Response? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if parts.first == "identitytoolkit.googleapis.com" { parts.removeFirst() }
        guard parts.last == "securityEvents:export", parts.count == 4 || parts.count == 6, parts[0] == "v2", parts[1] == "projects",
            parts.count == 4 || parts[3] == "tenants"
        else { return nil }
        guard request.method == .get else { return PublicAPI.error(.notFound) }
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        let (projectId, tenantId) = (parts[2], parts.count == 6 ? parts[4] : nil)
        do {
            guard try await credentials.resolve(headers: request.headers, query: query, listener: listener) == .admin else {
                throw IdentityToolkitError.targetProjectNeedsAdmin
            }
            var lines: [UInt8] = []
            var exported = 0
            var next: String? = query["pageToken"]
            repeat {
                var pageQuery = query
                pageQuery["pageSize"] = "1000"
                pageQuery["pageToken"] = next
                let page = try await events.page(projectId: projectId, tenantId: tenantId, query: pageQuery, requestID: requestID)
                if case .array(let found)? = page["events"] {
                    for event in found {
                        lines += try JSONCoding.encode(event)
                        lines.append(UInt8(ascii: "\n"))
                    }
                    exported += found.count
                }
                next = page["nextPageToken"]?.stringValue
            } while next != nil && exported < Self.maximumEvents
            var response = Response(
                status: .ok, headers: [.contentType: "application/x-ndjson; charset=UTF-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: lines))
            )
            if let next { response.headers[HTTPField.Name("x-next-page-token")!] = next }
            return response
        } catch let error as IdentityToolkitError {
            return PublicAPI.error(error)
        } catch {
            logger.error("security event export failed", metadata: ["error": "\(String(reflecting: error))"])
            return PublicAPI.error(.internalError(requestID: requestID))
        }
    }
}
