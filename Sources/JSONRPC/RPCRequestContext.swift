import Tracing

/// A request object's `context` member: what a call carries beside its params about the flow it is
/// part of, so that calls sent together in one batch keep each their own (issue 60): the request id
/// that follows a flow across the services' logs, whom the call serves in the end
/// (``RequestOrigin``), and the caller's trace context.
///
/// Every service's OpenRPC document declares it (`x-request-context`, `RequestContext` in
/// common.schema.json). The dispatcher refuses a member that breaks it with -32600 for that request
/// alone. A request without it takes these from its HTTP headers (`x-request-id`, `x-mfa-origin`,
/// `traceparent`), as a tool's does; where both are present the member wins.
public struct RPCRequestContext: Codable, Sendable, Hashable {
    public var requestId: String?
    public var origin: RequestOrigin?
    /// The trace propagation fields (W3C: `traceparent`, `tracestate`), as the instrument writes them.
    public var trace: [String: String]?

    public init(requestId: String? = nil, origin: RequestOrigin? = nil, trace: [String: String]? = nil) {
        self.requestId = requestId
        self.origin = origin
        self.trace = trace
    }

    /// Nothing to send: the request goes without a `context` member.
    public var isEmpty: Bool { requestId == nil && origin == nil && trace == nil }

    /// The members the contract declares; any other is refused.
    public static let memberNames: Set<String> = ["requestId", "origin", "trace"]
    static let originMemberNames: Set<String> = ["clientAddress", "userAgent", "actor"]
    static let maximumTraceFields = 8
    static let maximumTraceFieldBytes = 512

    /// Reads and checks a parsed `context` member.
    init(validating value: JSONValue) throws(RPCError) {
        guard case .object(let members) = value else { throw Self.invalid("context must be an object") }
        if let unknown = members.keys.filter({ !Self.memberNames.contains($0) }).sorted().first {
            throw Self.invalid("context.\(unknown.prefix(64)) is not a context member")
        }
        switch members["requestId"] {
        case nil: break
        case .string(let id) where Self.isSafeRequestID(id): requestId = id
        default: throw Self.invalid("context.requestId must be at most 64 letters, digits, '-', '_' or '.'")
        }
        switch members["origin"] {
        case nil: break
        case .object(let fields):
            origin = try Self.origin(fields)
        default: throw Self.invalid("context.origin must be an object")
        }
        switch members["trace"] {
        case nil: break
        case .object(let fields):
            guard fields.count <= Self.maximumTraceFields else { throw Self.invalid("context.trace has too many fields") }
            var trace: [String: String] = [:]
            for (name, field) in fields {
                guard case .string(let text) = field, name.utf8.count <= 64, text.utf8.count <= Self.maximumTraceFieldBytes else {
                    throw Self.invalid("context.trace fields must be short strings")
                }
                trace[name] = text
            }
            self.trace = trace
        default: throw Self.invalid("context.trace must be an object")
        }
    }

    private static func origin(_ fields: [String: JSONValue]) throws(RPCError) -> RequestOrigin {
        if let unknown = fields.keys.filter({ !originMemberNames.contains($0) }).sorted().first {
            throw invalid("context.origin.\(unknown.prefix(64)) is not an origin member")
        }
        func text(_ name: String) throws(RPCError) -> String? {
            switch fields[name] {
            case nil: return nil
            case .string(let value): return value
            default: throw invalid("context.origin.\(name) must be a string")
            }
        }
        guard let actor = try text("actor") else { throw invalid("context.origin.actor is required") }
        return RequestOrigin(clientAddress: try text("clientAddress"), userAgent: try text("userAgent"), actor: actor)
    }

    private static func invalid(_ message: String) -> RPCError {
        .invalidRequest(message)
    }

    /// Request ids from peers are echoed into logs: only short, plain tokens are taken.
    public static func isSafeRequestID(_ value: String) -> Bool {
        value.utf8.count <= 64
            && value.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }

    /// Runs `body` with this context's origin and trace bound, and its request id in `context`.
    func applied<T: Sendable>(to context: RPCCallContext, _ body: (RPCCallContext) async -> T) async -> T {
        var context = context
        if let requestId {
            context.requestID = requestId
            context.logger[metadataKey: "request.id"] = .string(requestId)
        }
        let call = context
        func withOrigin() async -> T {
            guard let origin else { return await body(call) }
            return await RequestOrigin.$current.withValue(origin) { await body(call) }
        }
        guard let trace else { return await withOrigin() }
        var serviceContext = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(trace, into: &serviceContext, using: TraceFieldsExtractor())
        return await ServiceContext.withValue(serviceContext) { await withOrigin() }
    }
}

/// Reads trace propagation fields from a `context.trace` object.
struct TraceFieldsExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key]
    }
}

/// Writes trace propagation fields into a `context.trace` object.
public struct TraceFieldsInjector: Injector {
    public init() {}
    public func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}
