import Foundation
import HTTPTypes
import Hummingbird
import IdentityToolkit
import JSONRPC
import Logging
import NIOCore
import ServiceKit
import ServiceTransport
import Tracing

/// The gateway's public listener: every Identity Toolkit path, with and without host prefixes.
///
/// For each request, in order: CORS preflight; route (404 `Not Found` envelope when unknown);
/// credentials (403 without an API key, 401 for a bad bearer token); body size (413), JSON (400
/// `parseError`) and the operation's schema (400 `INVALID_ARGUMENT`); then the operation's handler,
/// or 501 for an operation not served yet. Every answer is JSON; client errors are never 5xx.
struct PublicAPI: Sendable {
    let router: OperationRouter
    let validator: RequestValidator
    let credentials: CredentialResolver
    let handlers: [String: PublicOperationHandler]
    let status: @Sendable () async -> JSONValue
    let signingKeys: SigningKeySet
    let emulator: EmulatorRoutes
    let demo: DemoPage
    let securityEventExport: SecurityEventExport
    let metrics: PublicRequestMetrics
    let clientAddress: ClientAddress
    /// Development only: a page on the public internet may call a gateway on the developer's own
    /// machine (Private Network Access). In production that answer would let any web page reach a
    /// gateway inside a private network through its visitors' browsers (issue 40, L-5).
    let allowsPrivateNetworkPreflight: Bool
    let logger: Logger

    static let maximumBodyBytes = 1 << 20

    func respond(to request: Request, context: GatewayRequestContext, listener: ListenerRole = .public) async -> Response {
        // The request's span: a child of the client's trace when it sent a `traceparent`, named
        // after the operation once routing knows it; every RPC the handler makes is a child of it.
        var trace = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &trace, using: HTTPFieldsExtractor())
        let span = startSpan("public request", context: trace, ofKind: .server)
        defer { span.end() }
        let started = ContinuousClock.now
        let origin = request.headers[.origin]
        var (response, operation, tenant) = await ServiceContext.withValue(span.context) {
            await answer(request, context: context, listener: listener)
        }
        if let origin {
            // The emulator reflects any origin and any requested header (contract §1.1).
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.vary] = "Origin"
        }
        let duration = ContinuousClock.now - started
        let status = Int(response.status.code)
        span.operationName = operation
        span.attributes["http.response.status_code"] = status
        span.attributes["mfa.request_id"] = context.id
        if let tenant { span.attributes["mfa.tenant_id"] = tenant }
        if status >= 500 { span.setStatus(.init(code: .error)) }
        metrics.observe(operation: operation, status: status, duration: duration)
        // The access log, at debug: the request id here is the one every service's lines carry.
        context.logger.debug(
            "public request served",
            metadata: [
                "request.id": .string(context.id), "operation": .string(operation), "status": .stringConvertible(status),
                "tenant": .string(tenant ?? "-"),
                "duration.ms": .stringConvertible(duration.milliseconds),
            ]
        )
        return response
    }

    /// The answer, what to call the request in the metrics (an operation id or a fixed route name),
    /// and the tenant it names (for the access log and the trace; `nil` for the project or none).
    private func answer(
        _ request: Request, context: GatewayRequestContext, listener: ListenerRole
    ) async -> (Response, String, String?) {
        let path = request.uri.path
        if request.method == .options {
            return (
                Self.preflight(request, allowingPrivateNetwork: allowsPrivateNetworkPreflight),
                PublicRequestMetrics.Route.preflight.rawValue, nil
            )
        }
        if request.method == .get, path == "/" || path.isEmpty {
            return (Self.json(200, await status()), PublicRequestMetrics.Route.status.rawValue, nil)
        }
        if request.method == .get, SigningKeySet.serves(path) {
            return (await signingKeyDocument(path, context: context), PublicRequestMetrics.Route.signingKeys.rawValue, nil)
        }
        if let answer = await emulator.respond(request, path: path, requestID: context.id) {
            return (answer, PublicRequestMetrics.Route.emulator.rawValue, nil)
        }
        if let answer = await demo.respond(request, path: path) {
            return (answer, PublicRequestMetrics.Route.demo.rawValue, nil)
        }
        if let answer = await securityEventExport.respond(
            request, path: path, listener: listener, requestID: context.id, logger: context.logger
        ) {
            return (answer, "mfa.projects.securityEvents.export", nil)
        }
        guard case .matched(let match) = router.route(method: request.method.rawValue, path: path) else {
            return (Self.error(.notFound), PublicRequestMetrics.Route.unmatched.rawValue, nil)
        }
        let (response, tenant) = await perform(match, request, context: context, listener: listener)
        return (response, match.operation.operationId, tenant)
    }

    private func signingKeyDocument(_ path: String, context: GatewayRequestContext) async -> Response {
        do {
            let (document, maxAge) = try await signingKeys.document(for: path)
            var response = Self.json(200, document)
            response.headers[.cacheControl] = "public, max-age=\(maxAge)"
            return response
        } catch {
            context.logger.error("signing keys unavailable", metadata: ["error": "\(error)"])
            return Self.error(.unavailable)
        }
    }

    /// Credentials, body, schema, then the operation's handler.
    private func perform(
        _ match: OperationRouter.Match, _ request: Request, context: GatewayRequestContext, listener: ListenerRole
    ) async -> (Response, String?) {
        var tenant: String?
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        do {
            let caller = try await credentials.resolve(headers: request.headers, query: query, listener: listener)
            try validator.validateQuery(query)
            let body = try await Self.readBody(request)
            let normalised =
                if let schema = match.operation.requestSchema {
                    try validator.validate(body, schema: schema)
                } else {
                    body
                }
            // Only a well-formed tenant id: the value goes to a log line and a trace attribute.
            if let named = match.pathParameters["tenantId"] ?? normalised["tenantId"]?.stringValue, named.count <= 128,
                named.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            {
                tenant = named
            }
            guard let handler = handlers[match.operation.operationId] else {
                throw IdentityToolkitError.notImplemented(match.operation.operationId)
            }
            let address = clientAddress.resolve(peer: context.remoteAddress?.ipAddress, headers: request.headers)
            // Every call this request makes carries whom it is for, for the security events.
            let origin = RequestOrigin(
                clientAddress: address, userAgent: request.headers[.userAgent],
                actor: caller == .admin ? "admin:\(AdminAuthenticator.credentialID(request.headers) ?? "unknown")" : "user"
            )
            let result = try await RequestOrigin.$current.withValue(origin) {
                try await handler(
                    PublicRequest(
                        operation: match.operation, pathParameters: match.pathParameters, body: normalised, query: query,
                        caller: caller, apiKey: query["key"] ?? request.headers[CredentialResolver.apiKeyHeader],
                        requestID: context.id, clientAddress: address, logger: context.logger,
                        defaultProjectId: credentials.defaultProjectId,
                        locale: request.headers[PublicRequest.localeHeader].map { String($0.prefix(64)) }
                    )
                )
            }
            return (Self.json(200, result), tenant)
        } catch let error as IdentityToolkitError {
            return (Self.error(error), tenant)
        } catch {
            context.logger.error(
                "public operation failed",
                metadata: ["operation": "\(match.operation.operationId)", "error": "\(String(reflecting: error))"]
            )
            return (Self.error(.internalError(requestID: context.id)), tenant)
        }
    }

    /// The body as JSON: a JSON object, a form (`application/x-www-form-urlencoded`, which the JS
    /// SDK uses for token refresh), or nothing (`{}`). A form body that is a JSON object is read as
    /// JSON: that is `curl -d '{…}'` without a content type, the first thing a newcomer pastes, and
    /// no form field can start with `{`.
    static func readBody(_ request: Request) async throws -> JSONValue {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBodyBytes {
            throw IdentityToolkitError.payloadTooLarge
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBodyBytes)
        } catch {
            throw IdentityToolkitError.payloadTooLarge
        }
        let bytes = Array(buffer.readableBytesView)
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .object([:]) }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        let object = bytes.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) } == UInt8(ascii: "{")
        if contentType.hasPrefix("application/x-www-form-urlencoded"), !object {
            return formBody(String(decoding: bytes, as: UTF8.self))
        }
        do {
            // Parsing is linear (JSONParser), but a body near the 1 MiB limit still costs milliseconds:
            // those go to the blocking pool so that one large request does not hold up its loop's others.
            if bytes.count > inlineParseBytes { return try await BlockingWork.run { try JSONCoding.parse(bytes) } }
            return try JSONCoding.parse(bytes)
        } catch {
            throw IdentityToolkitError.invalidPayload("Unexpected token.", reason: "parseError")
        }
    }

    /// Bodies up to this size are parsed where they arrive: every request an SDK sends is far smaller,
    /// and a hop to another thread would cost more than the parse.
    static let inlineParseBytes = 64 << 10

    static func formBody(_ text: String) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            guard let name = parts.first.map(decode), !name.isEmpty else { continue }
            members[name] = .string(parts.count > 1 ? decode(parts[1]) : "")
        }
        return .object(members)
    }

    static func preflight(_ request: Request, allowingPrivateNetwork: Bool) -> Response {
        var response = Response(status: .noContent)
        response.headers[.accessControlAllowMethods] = "GET, POST, PATCH, DELETE, OPTIONS"
        if let requested = request.headers[.accessControlRequestHeaders] {
            response.headers[.accessControlAllowHeaders] = requested
        }
        if allowingPrivateNetwork, request.headers[HTTPField.Name("access-control-request-private-network")!] != nil {
            response.headers[HTTPField.Name("access-control-allow-private-network")!] = "true"
        }
        response.headers[.accessControlMaxAge] = "3600"
        return response
    }

    static func json(_ status: Int, _ value: JSONValue) -> Response {
        let body = (try? JSONCoding.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: "application/json; charset=UTF-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: body))
        )
    }

    static func error(_ error: IdentityToolkitError) -> Response {
        json(error.httpStatus, error.envelope)
    }
}
