import Contracts
import Foundation
import Hummingbird
import JSONRPC
import NIOCore
import ServiceTransport

/// Builds the ops listener: `GET /healthz`, `GET /readyz`, `GET /metrics` (a metrics or admin
/// credential, see ``MetricsAccess``), and the admin routes under `/admin` (bearer admin
/// credential required), including `GET /admin/status`.
public struct OpsRouter: Sendable {
    let metrics: ServiceMetrics
    let authenticator: AdminAuthenticator
    let metricsAccess: MetricsAccess
    let readiness: @Sendable () async -> (ready: Bool, checks: [String: DependencyState])
    /// Peers whose connection is wedged in this process: liveness fails, so the process is restarted.
    let wedgedPeers: @Sendable () async -> [ServiceName]
    let status: @Sendable () async -> ServiceStatus
    let adminRoutes: @Sendable (RouterGroup<BasicRequestContext>) -> Void

    public func buildRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.get("healthz") { _, _ in
            // Liveness is about this process only: a peer that is down is readiness's business. A peer
            // connection that stays wedged while a new connection to the same peer answers is ours.
            let wedged = await wedgedPeers()
            guard wedged.isEmpty else {
                return Self.json(
                    .serviceUnavailable,
                    ["status": "wedged", "peers": .array(wedged.map { .string($0.rawValue) })] as JSONValue
                )
            }
            return Self.json(.ok, ["status": "ok"] as JSONValue)
        }
        router.get("readyz") { _, _ in
            let (ready, checks) = await readiness()
            var members: [String: JSONValue] = ["ready": .bool(ready)]
            members["checks"] = (try? JSONCoding.value(of: checks)) ?? JSONValue.null
            return Self.json(ready ? .ok : .serviceUnavailable, JSONValue.object(members))
        }
        router.get("metrics") { request, _ in
            guard metricsAccess.permits(request.headers) else {
                var response = Self.error(.unauthorized, "metrics credential required")
                response.headers[.wwwAuthenticate] = "Bearer"
                return response
            }
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.exposition()))
            )
        }
        let admin = router.group("admin").add(middleware: AdminMiddleware(authenticator: authenticator))
        admin.get("status") { _, _ in
            Self.json(.ok, await status())
        }
        adminRoutes(admin)
        return router
    }

    /// A JSON response with the given status.
    public static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        let body = (try? JSONCoding.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: body))
        )
    }

    /// A JSON error document `{"error": {"code": …, "message": …}}` for ops and admin routes.
    public static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(status, ["error": ["code": .int(Int64(status.code)), "message": .string(message)]] as JSONValue)
    }
}

/// Refuses admin routes without an admin credential (401, nothing else revealed).
struct AdminMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let authenticator: AdminAuthenticator

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard authenticator.isAdmin(request.headers) else {
            var response = OpsRouter.error(.unauthorized, "admin credential required")
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        return try await next(request, context)
    }
}
