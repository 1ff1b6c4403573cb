import Foundation
import JSONRPC
import Logging
import NIOCore
import NIOHPACK
import NIOPosix
import Synchronization
import Tracing

/// A typed JSON-RPC client for one peer service: over HTTP/2 with mutual TLS, or, when the peer runs
/// in this process (``LocalPeers``), straight to its dispatcher with the params as a value.
///
/// All network calls to a peer share its ``PeerChannel``: its HTTP/2 connections (one per core), multiplexed.
public final class RPCClient: Sendable {
    public let peer: ServiceName
    let route: Route
    let timeout: Duration
    /// Request ids, unique in the process: calls of several clients sharing one channel may share a
    /// batch, whose answer is matched to them by id.
    private static let nextID = Atomic<Int64>(1)

    /// The largest response body accepted from a peer.
    static let maximumResponseBytes = 4 << 20
    static let logger = Logger(label: "mfa.rpc-client")

    enum Route: Sendable {
        /// `mode` is ours: sent with every call, and a peer answering in another mode is refused.
        case network(endpoint: String, connection: PeerConnection, mode: DeploymentMode)
        /// The peer runs in this process; `caller` is who we are, as a certificate would say.
        case inProcess(LocalPeers, caller: ServiceName)
    }

    /// A client over `channel`, which the caller owns (a test's, a benchmark's).
    public convenience init(peer: ServiceName, over channel: PeerChannel, timeout: Duration, mode: DeploymentMode) {
        self.init(peer: peer, connection: PeerConnection(peer: peer, sharing: channel, timeout: timeout), mode: mode)
    }

    private init(peer: ServiceName, route: Route, timeout: Duration) {
        self.peer = peer
        self.route = route
        self.timeout = timeout
    }

    /// The same peer and connection, with another deadline per call: for the few calls whose work
    /// is long by nature (an import hashing a thousand passwords), so that the usual deadline stays
    /// short for everything else.
    public func allowing(_ timeout: Duration) -> RPCClient {
        RPCClient(peer: peer, route: route, timeout: timeout)
    }

    /// A client over the peer's connection, which replaces itself when it stops answering.
    public init(peer: ServiceName, connection: PeerConnection, mode: DeploymentMode) {
        self.peer = peer
        let path = URLComponents(string: connection.baseURL)?.path ?? ""
        self.route = .network(endpoint: path.hasSuffix("/") ? path + "rpc" : path + "/rpc", connection: connection, mode: mode)
        self.timeout = connection.timeout
    }

    /// A client for a peer in this process. The peer's caller policy sees `caller`, exactly as it
    /// would see the common name of `caller`'s certificate.
    public init(peer: ServiceName, in local: LocalPeers, caller: ServiceName, timeout: Duration) {
        precondition(local.hosts(peer), "\(peer.rawValue) does not run in this process")
        self.peer = peer
        self.route = .inProcess(local, caller: caller)
        self.timeout = timeout
    }

    /// Calls `method` and returns its result.
    /// - Throws: the peer's ``RPCError``, or ``RPCTransportError`` when it could not be reached or
    ///   answered something that is not JSON-RPC.
    public func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params, requestID: String? = nil) async throws -> M.Result {
        let id = Self.nextID.add(1, ordering: .relaxed).newValue
        switch route {
        case .network(let endpoint, let connection, let mode):
            let request = Request(method: M.name, params: params, id: id, requestID: requestID, sharesBatches: M.sharesBatches)
            let bytes = try await post(request, to: endpoint, over: connection, mode: mode)
            return try decode(M.self, from: bytes)
        case .inProcess(let local, let caller):
            return try await dispatch(M.self, params, in: local, caller: caller, requestID: requestID ?? "local-\(id)")
        }
    }

    private func decode<M: RPCMethod>(_ method: M.Type, from bytes: Data) throws -> M.Result {
        let decoded: TypedResponse<M.Result>
        do {
            decoded = try JSONDecoder().decode(TypedResponse<M.Result>.self, from: bytes)
        } catch {
            throw RPCTransportError(peer: peer, method: M.name, reason: "response is not a JSON-RPC response for this method")
        }
        if let error = decoded.error { throw error }
        guard let result = decoded.result else {
            throw RPCTransportError(peer: peer, method: M.name, reason: "response has neither result nor error")
        }
        return result
    }

    /// What a network call sends: encoded within the call's span, whose trace context it carries.
    private struct Request<Params: Encodable & Sendable>: Sendable {
        let method: String
        let params: Params
        let id: Int64
        let requestID: String?
        let sharesBatches: Bool

        /// The request object, with its own request id, origin and trace (``RPCRequestContext``):
        /// it may share a stream with other calls, whose headers it cannot use.
        func encoded(trace: [String: String]) throws -> ByteBuffer {
            let context = RPCRequestContext(requestId: requestID, origin: RequestOrigin.current, trace: trace.isEmpty ? nil : trace)
            let envelope = RPCRequestEnvelope(
                method: method, params: params, id: .int(id),
                context: context.isEmpty ? nil : context
            )
            return ByteBuffer(bytes: try JSONCoding.encode(envelope))
        }
    }

    /// The network call, run apart from its caller: a caller that gives up (its own client went away,
    /// so its request was cancelled) stops waiting at once, but the HTTP/2 exchange with the peer runs
    /// to its answer or its own deadline. Cancelling exchanges mid-flight is what wedged the shared
    /// connection (issue 40, H-3): a burst of public requests cut off by their client left the peer's
    /// connection without usable streams, and every later call waited out its deadline.
    private func post<Params>(
        _ request: Request<Params>, to endpoint: String, over connection: PeerConnection, mode: DeploymentMode
    ) async throws -> Data {
        // The exchange's task inherits the caller's task-locals (its trace, its `RequestOrigin`).
        let outcome = await Self.result(within: timeout + .seconds(1)) { [self] () -> Result<Data, any Error> in
            do {
                return .success(try await exchange(request, to: endpoint, over: connection, mode: mode))
            } catch {
                return .failure(error)
            }
        }
        guard let outcome else {
            throw RPCTransportError(
                peer: peer, method: request.method, reason: Task.isCancelled ? "cancelled" : "no answer within \(timeout)"
            )
        }
        return try outcome.get()
    }

    private func exchange<Params>(
        _ request: Request<Params>, to path: String, over connection: PeerConnection, mode: DeploymentMode
    ) async throws -> Data {
        let method = request.method
        let headers = [("content-type", "application/json"), (DeploymentMode.header, mode.rawValue)]
        let answer: PeerAnswer
        do {
            answer = try await withSpan(method, ofKind: .client) { span in
                span.attributes["rpc.system"] = "jsonrpc"
                span.attributes["server.address"] = peer.rawValue
                var trace: [String: String] = [:]
                InstrumentationSystem.instrument.inject(span.context, into: &trace, using: TraceFieldsInjector())
                return try await connection.channel.call(
                    path: path, headers: headers, request: try request.encoded(trace: trace), id: .int(request.id),
                    alone: !request.sharesBatches, limit: Self.maximumResponseBytes, deadline: timeout
                )
            }
        } catch PeerExchangeError.deadlineExceeded {
            connection.missedDeadline(method: method)
            throw RPCTransportError(peer: peer, method: method, reason: "no answer within \(timeout)")
        } catch PeerExchangeError.answerTooLarge {
            // The caller answers 503 as for a peer that is down; the operator must see why (issue 40, item 7).
            Self.logger.error(
                "peer answer refused for its size",
                metadata: ["rpc.peer": "\(peer.rawValue)", "rpc.method": "\(method)", "limit.bytes": "\(Self.maximumResponseBytes)"]
            )
            throw RPCTransportError(peer: peer, method: method, reason: "answer larger than \(Self.maximumResponseBytes) bytes")
        } catch {
            throw RPCTransportError(peer: peer, method: method, reason: "\(error)")
        }
        // An answer, whatever it says: the connection works.
        connection.answered()
        // Decision 16: nothing a peer in another mode says is taken (a development session-token
        // would vouch for unsigned custom tokens). The caller answers 503, as for a peer that is down.
        if let peerMode = answer.headers.first(name: DeploymentMode.header), peerMode != mode.rawValue {
            throw RPCTransportError(
                peer: peer, method: method, reason: "peer runs in \(peerMode.prefix(16)) mode, this service in \(mode.rawValue)",
                peerMode: String(peerMode.prefix(16))
            )
        }
        return Data(buffer: answer.body)
    }

    /// The in-process call: the peer's dispatcher runs the handler with the params as they are,
    /// within the same timeout a network call has (a peer whose database hangs holds a caller no
    /// longer here).
    private func dispatch<M: RPCMethod>(
        _ method: M.Type, _ params: M.Params, in local: LocalPeers, caller: ServiceName, requestID: String
    ) async throws -> M.Result {
        guard let peerService = local.service(peer) else {
            throw RPCTransportError(peer: peer, method: M.name, reason: "not started yet")
        }
        var logger = peerService.logger
        logger.addMetadata(["request.id": .string(requestID), "rpc.caller": .string(caller.rawValue)])
        let context = RPCCallContext(caller: caller.rawValue, requestID: requestID, logger: logger)
        let dispatcher = peerService.dispatcher
        let answer = await Self.result(within: timeout) { () -> Result<M.Result, any Error> in
            do { return .success(try await dispatcher.call(M.self, params, context: context)) } catch { return .failure(error) }
        }
        guard let answer else {
            throw RPCTransportError(peer: peer, method: M.name, reason: Task.isCancelled ? "cancelled" : "no answer within \(timeout)")
        }
        return try answer.get()
    }

    /// `work`'s result, or `nil` once `timeout` has passed. Work that outlives its caller finishes on
    /// its own and its result is dropped, as a network peer finishes a request its caller gave up on.
    ///
    /// One task runs the work; the deadline is a timer on an event loop, cancelled when the work
    /// finishes first. (A second task sleeping until the deadline cost a task and a dispatch timer
    /// per call, five times per sign-in.)
    public static func result<T: Sendable>(within timeout: Duration, of work: @escaping @Sendable () async -> T) async -> T? {
        let waiter = SingleResume<T?>()
        // A caller that is cancelled (its own request gave up, or the process is stopping) stops
        // waiting at once, as it would on a network call; the work still finishes on its own.
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.set(continuation)
                // On the caller's own loop when it runs on one: setting and cancelling the timer then
                // takes no lock on, and wakes no thread of, another loop.
                let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
                let deadline = loop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
                    waiter.resume(returning: nil)
                }
                Task {
                    let value = await work()
                    deadline.cancel()
                    waiter.resume(returning: value)
                }
                // Cancelled before the continuation was stored: the handler below found none to resume.
                if Task.isCancelled { waiter.resume(returning: nil) }
            }
        } onCancel: {
            waiter.resume(returning: nil)
        }
    }
}

/// A continuation that the first of several racing tasks resumes; later attempts do nothing.
private final class SingleResume<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<T, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume(returning value: T) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}

/// The peer could not be reached, or did not answer in JSON-RPC.
public struct RPCTransportError: Error, CustomStringConvertible, Sendable {
    public let peer: ServiceName
    public let method: String
    public let reason: String
    /// Set when the peer answered, but in another deployment mode than ours.
    public let peerMode: String?

    public init(peer: ServiceName, method: String, reason: String, peerMode: String? = nil) {
        self.peer = peer
        self.method = method
        self.reason = reason
        self.peerMode = peerMode
    }
    public var description: String { "\(peer.rawValue) \(method): \(reason)" }
}

/// A response decoded straight into the method's result type (one parse, no intermediate tree).
private struct TypedResponse<Result: Decodable>: Decodable {
    var result: Result?
    var error: RPCError?
}
