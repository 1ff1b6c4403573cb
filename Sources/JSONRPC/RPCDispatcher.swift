import Foundation
import Logging
import Tracing

/// Turns a JSON-RPC 2.0 request body into a response body, exactly as the specification says:
/// single and batch requests, notifications (no reply), `id` echo, and the standard error
/// codes with their triggers. Knows nothing of HTTP; the transport hands it bytes and a caller.
public struct RPCDispatcher: Sendable {
    /// The most entries one batch may carry; larger batches are refused as a whole.
    public static let maximumBatchSize = 100

    private let table: RPCMethodTable
    private let observer: (any RPCObserver)?
    private let translate: @Sendable (any Error) -> RPCError?

    /// `translate` turns a handler's non-RPC error that has a contract meaning (a tenant schema
    /// dropped under a request, say) into an application error; anything else is -32603.
    public init(
        table: RPCMethodTable, observer: (any RPCObserver)? = nil,
        translate: @escaping @Sendable (any Error) -> RPCError? = { _ in nil }
    ) {
        self.table = table
        self.observer = observer
        self.translate = translate
    }

    /// What goes back to the caller.
    public enum Reply: Sendable {
        case single(RPCResponse)
        case batch([RPCResponse])
        /// Only notifications were sent: the transport answers with no body.
        case none

        /// The encoded body, or `nil` for ``none``.
        public func encoded() -> Data? {
            switch self {
            case .single(let response): return try? JSONCoding.encode(response)
            case .batch(let responses): return try? JSONCoding.encode(responses)
            case .none: return nil
            }
        }
    }

    /// Handles one request body: a request object, or a batch of them, whose members run side by
    /// side (a batch is answered once its slowest member is done, in the members' order).
    public func handle(_ body: some Collection<UInt8>, context: RPCCallContext) async -> Reply {
        let bytes = Data(body)
        switch bytes.first(where: { !JSONScanner.isWhitespace($0) }) {
        case UInt8(ascii: "["):
            return await batch(bytes, context: context)
        default:
            guard let document = try? JSONCoding.parse(bytes) else {
                return .single(RPCResponse(id: .null, error: .parseError()))
            }
            return await serve(document, bytes: bytes, context: context).map(Reply.single) ?? .none
        }
    }

    /// A batch, cut into its members without building the whole document's tree: each member is then
    /// parsed on its own and, when well formed, decoded from its own bytes like a single request. Any
    /// member that is not JSON makes the whole body a parse error, as the specification says.
    private func batch(_ bytes: Data, context: RPCCallContext) async -> Reply {
        guard let ranges = JSONScanner.elements(ofArray: bytes) else {
            return .single(RPCResponse(id: .null, error: .parseError()))
        }
        guard !ranges.isEmpty else {
            return .single(RPCResponse(id: .null, error: .invalidRequest("Empty batch")))
        }
        guard ranges.count <= Self.maximumBatchSize else {
            return .single(RPCResponse(id: .null, error: .invalidRequest("Batch larger than \(Self.maximumBatchSize) entries")))
        }
        var members: [(document: JSONValue, bytes: Data)] = []
        members.reserveCapacity(ranges.count)
        for range in ranges {
            let member = Data(bytes[range])
            // One level of the allowed nesting is the batch's own array.
            guard let document = try? JSONParser.parse(member, maximumDepth: JSONParser.maximumDepth - 1) else {
                return .single(RPCResponse(id: .null, error: .parseError()))
            }
            members.append((document, member))
        }
        let responses: [RPCResponse?]
        if members.count == 1 {
            responses = [await serve(members[0].document, bytes: members[0].bytes, context: context)]
        } else {
            responses = await withTaskGroup(of: (Int, RPCResponse?).self) { group in
                for (index, member) in members.enumerated() {
                    group.addTask { (index, await serve(member.document, bytes: member.bytes, context: context)) }
                }
                var answers = [RPCResponse?](repeating: nil, count: members.count)
                for await (index, response) in group { answers[index] = response }
                return answers
            }
        }
        let answered = responses.compactMap { $0 }
        return answered.isEmpty ? .none : .batch(answered)
    }

    /// Checks one request object and runs it; `nil` for a notification. Well-formed params are
    /// decoded straight from the request's bytes into the method's type; anything else is answered
    /// from the parsed tree with the specification's error.
    private func serve(_ element: JSONValue, bytes: Data, context: RPCCallContext) async -> RPCResponse? {
        guard case .object(let members) = element else {
            return RPCResponse(id: .null, error: .invalidRequest())
        }
        // An `id` member of an illegal type makes the request invalid, answered with id null.
        let id: RPCID?
        if let idMember = members["id"] {
            guard let parsed = RPCID(idMember) else {
                return RPCResponse(id: .null, error: .invalidRequest("id must be a string, a number or null"))
            }
            id = parsed
        } else {
            id = nil
        }
        guard members["jsonrpc"] == .string("2.0") else {
            return RPCResponse(id: id ?? .null, error: .invalidRequest("jsonrpc must be \"2.0\""))
        }
        guard case .string(let method)? = members["method"] else {
            return RPCResponse(id: id ?? .null, error: .invalidRequest("method must be a string"))
        }
        let params: RPCParams
        switch members["params"] {
        case nil: params = .encoded(bytes, keys: nil)
        case .object(let fields)?: params = .encoded(bytes, keys: Array(fields.keys))
        case .array(let elements)?: params = .parsed(.array(elements))
        default: return RPCResponse(id: id ?? .null, error: .invalidRequest("params must be an object or an array"))
        }
        guard let member = members["context"] else {
            return await execute(id, method: method, params: params, context: context)
        }
        let requestContext: RPCRequestContext
        do {
            requestContext = try RPCRequestContext(validating: member)
        } catch {
            return RPCResponse(id: id ?? .null, error: error)
        }
        return await requestContext.applied(to: context) { context in
            await execute(id, method: method, params: params, context: context)
        }
    }

    /// Runs one valid request; `nil` for a notification.
    private func execute(_ id: RPCID?, method: String, params: RPCParams, context: RPCCallContext) async -> RPCResponse? {
        let response: RPCResponse
        switch await perform(method, context: context, { try await invoke(method, params: params, context: $0) }) {
        case .success(let result): response = RPCResponse(id: id ?? .null, result: result)
        case .failure(let error): response = RPCResponse(id: id ?? .null, error: error)
        }
        // A notification gets no response, whatever happened.
        return id == nil ? nil : response
    }

    /// Runs a call from a service in the same process (``RPCMethodTable`` holds both forms of each
    /// handler): the params and result stay values, so nothing is encoded or parsed, while the
    /// caller policy, the errors a caller sees, the logging and the metrics are those of a request.
    /// The params' names are not checked against the contract: they are the method's own type, the
    /// one a network caller encodes, whose names every request over the network is checked for.
    public func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params, context: RPCCallContext) async throws -> M.Result {
        let outcome = await perform(M.name, context: context) { context -> any Sendable in
            guard let entry = table.entries[M.name] else { throw RPCError.methodNotFound(M.name) }
            try checkCaller(entry, method: M.name, context: context)
            return try await entry.call(params, context)
        }
        guard let result = try outcome.get() as? M.Result else {
            // Only a handler registered for another type under the same name could answer this.
            throw RPCError.internalError(requestID: context.requestID)
        }
        return result
    }

    /// Times `body`, turns whatever it throws into the error the caller sees, and reports the outcome.
    private func perform<T>(
        _ method: String, context: RPCCallContext, _ body: (RPCCallContext) async throws -> T
    ) async -> Result<T, RPCError> {
        let started = ContinuousClock.now
        var callContext = context
        callContext.logger[metadataKey: "rpc.method"] = .string(method)
        let outcome: RPCOutcome
        let result: Result<T, RPCError>
        // Unknown methods are not recorded by name: a caller could otherwise mint label values.
        let label = table.entries[method] != nil ? method : "unknown"
        let span = startSpan(label, ofKind: .server)
        span.attributes["rpc.system"] = "jsonrpc"
        span.attributes["rpc.caller"] = context.caller
        defer { span.end() }
        do {
            result = .success(try await ServiceContext.withValue(span.context) { try await body(callContext) })
            outcome = .success
        } catch let error as RPCError {
            outcome = Self.isProtocolError(error.code) ? .protocolError : .applicationError
            result = .failure(error)
        } catch let error where translate(error) != nil {
            outcome = .applicationError
            result = .failure(translate(error)!)
        } catch {
            // The cause stays in our log; the caller only learns the request id to quote.
            callContext.logger.error("RPC handler failed", metadata: ["error": "\(String(reflecting: error))"])
            outcome = .internalError
            result = .failure(.internalError(requestID: context.requestID))
        }
        span.attributes["rpc.outcome"] = outcome.rawValue
        if outcome == .internalError { span.setStatus(.init(code: .error)) }
        let duration = ContinuousClock.now - started
        observer?.observe(method: label, outcome: outcome, duration: duration)
        // One line per call at debug (an access log that follows a request id across services);
        // at the default level it costs one comparison.
        callContext.logger.debug(
            "rpc call served",
            metadata: [
                "rpc.method": .string(label), "rpc.outcome": .string(outcome.rawValue),
                "duration.ms": .stringConvertible(duration.milliseconds),
            ]
        )
        return result
    }

    private func checkCaller(_ entry: RPCMethodTable.Entry, method: String, context: RPCCallContext) throws {
        guard entry.policy.allows(context.caller) else {
            context.logger.notice("RPC caller refused", metadata: ["rpc.caller": .string(context.caller)])
            throw RPCError.callerNotAllowed(method: method)
        }
    }

    private func invoke(_ method: String, params: RPCParams, context: RPCCallContext) async throws
        -> any Encodable & Sendable
    {
        guard let entry = table.entries[method] else { throw RPCError.methodNotFound(method) }
        try checkCaller(entry, method: method, context: context)
        let names: [String]
        switch params {
        case .parsed(let value):
            guard case .object(let members) = value else {
                throw RPCError.invalidParams("params must be an object (by-name)")
            }
            names = Array(members.keys)
        case .encoded(_, let keys):
            names = keys ?? []
        }
        if let allowed = entry.paramNames, let first = names.filter({ !allowed.contains($0) }).sorted().first {
            throw RPCError.invalidParams("unknown param \(first)")
        }
        return try await entry.invoke(params, context)
    }

    private static func isProtocolError(_ code: RPCErrorCode) -> Bool {
        (-32768 ... -32000).contains(code.rawValue)
    }
}

/// A response built on the server: the result stays a typed value until encoding.
public struct RPCResponse: Encodable, Sendable {
    public let id: RPCID
    public let result: (any Encodable & Sendable)?
    public let error: RPCError?

    init(id: RPCID, result: any Encodable & Sendable) {
        self.id = id
        self.result = result
        self.error = nil
    }

    init(id: RPCID, error: RPCError) {
        self.id = id
        self.result = nil
        self.error = error
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        if let error {
            try container.encode(error, forKey: .error)
        } else if let result {
            try result.encode(to: container.superEncoder(forKey: .result))
        }
    }

    private enum CodingKeys: String, CodingKey {
        case jsonrpc, id, result, error
    }
}

extension Duration {
    /// Whole and fractional milliseconds, for log lines.
    public var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
