import JSONRPC
import NIOCore
import NIOHPACK
import NIOHTTP2
import Prometheus
import Synchronization

/// One JSON-RPC request object waiting for its connection, and the promise its answer completes.
struct PeerCall: Sendable {
    /// The stream's head without its length, and the call's deadline: only calls that agree on both
    /// share a stream.
    let head: HPACKHeaders
    let deadline: TimeAmount
    let request: ByteBuffer
    let id: RPCID
    /// Sent on a stream of its own (``RPCMethod/sharesBatches``).
    let alone: Bool
    /// The largest answer this call takes.
    let limit: Int
    let promise: EventLoopPromise<PeerAnswer>
}

/// The coalescer of one connection (issue 60, lever 1): calls to the peer that are ready in the same
/// moment leave as one JSON-RPC batch on one stream, so one stream, one header block and one write
/// carry several calls, on this side and on the peer's.
///
/// There is no timer: a batch is whatever is queued when the connection's event loop next turns to
/// it. A lone call leaves at once (as soon as it would have without a queue); under load the loop is
/// busy, calls gather meanwhile, and the busier it is, the larger the batches. A batch holds at most
/// ``maximumBatch`` calls, all with the same head and deadline (an import allowed five minutes never
/// holds up calls allowed five seconds: the peer answers a batch once its slowest member is done);
/// a call whose work is long by nature (``RPCMethod/sharesBatches``: a password hash, an outside
/// service's round trip) takes a stream of its own for the same reason.
final class PeerCallQueue: Sendable {
    static let maximumBatch = 32
    /// A batch grows no larger than this many bytes of requests (a call larger than it goes alone):
    /// far below any peer's body limit (`rpc.maxBodyBytes`, 1 MiB by default), so calls that would
    /// each be taken alone are never refused together.
    static let maximumBatchBytes = 64 << 10

    private struct State {
        var calls: [PeerCall] = []
        var flushScheduled = false
    }

    private let state = Mutex(State())

    /// Queues `call` for `connection`, whose event loop sends it with whatever else is queued then.
    func add(_ call: PeerCall, to connection: PeerChannel.Connection) {
        let schedule = state.withLock { state -> Bool in
            state.calls.append(call)
            guard !state.flushScheduled else { return false }
            state.flushScheduled = true
            return true
        }
        if schedule {
            connection.channel.eventLoop.execute { self.flush(connection) }
        }
    }

    private func flush(_ connection: PeerChannel.Connection) {
        let calls = state.withLock { state -> [PeerCall] in
            state.flushScheduled = false
            defer { state.calls.removeAll(keepingCapacity: true) }
            return state.calls
        }
        for range in Self.batches(calls) {
            PeerBatch(calls: Array(calls[range])).send(over: connection)
        }
    }

    /// How queued calls are cut into batches: runs of calls in queue order with the same head and
    /// deadline, at most ``maximumBatch`` calls and ``maximumBatchBytes`` each; a call that goes alone
    /// is a batch of one.
    static func batches(_ calls: [PeerCall]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < calls.count {
            var end = start + 1
            var bytes = calls[start].request.readableBytes
            while end < calls.count, end - start < maximumBatch, !calls[start].alone, !calls[end].alone,
                bytes + calls[end].request.readableBytes + 1 <= maximumBatchBytes,
                calls[end].deadline == calls[start].deadline, calls[end].head == calls[start].head
            {
                bytes += calls[end].request.readableBytes + 1
                end += 1
            }
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }
}

/// Calls that share one stream: a lone call is sent as its request object, several as a JSON-RPC
/// batch (an array of them), and the answer is cut back into each call's own.
struct PeerBatch {
    let calls: [PeerCall]

    func send(over connection: PeerChannel.Connection) {
        let first = calls[0]
        var body: ByteBuffer
        if calls.count == 1 {
            body = first.request
        } else {
            body = connection.channel.allocator.buffer(capacity: calls.reduce(calls.count + 1) { $0 + $1.request.readableBytes })
            body.writeInteger(UInt8(ascii: "["))
            for (index, call) in calls.enumerated() {
                if index > 0 { body.writeInteger(UInt8(ascii: ",")) }
                var request = call.request
                body.writeBuffer(&request)
            }
            body.writeInteger(UInt8(ascii: "]"))
        }
        var headers = first.head
        headers.add(name: "content-length", value: String(body.readableBytes))
        connection.traffic.record(streams: 1, calls: calls.count)
        let promise = connection.channel.eventLoop.makePromise(of: PeerAnswer.self)
        let (limit, deadline, goAway) = (calls.reduce(0) { $0 + $1.limit }, first.deadline, connection.goAway)
        connection.multiplexer.createStreamChannel { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(
                    PeerExchange(headers: headers, body: body, limit: limit, deadline: deadline, goAway: goAway, promise: promise)
                )
            }
        }.whenFailure { error in
            promise.fail(PeerExchangeError.notSent(error))
        }
        let calls = self.calls
        promise.futureResult.whenComplete { result in
            switch result {
            case .failure(let error):
                // Not sent, not answered in time, cut off: the same for every call of the batch. Only
                // a batch the peer provably processed none of is sent again (``PeerChannel/call``).
                for call in calls { call.promise.fail(error) }
            case .success(let answer):
                Self.distribute(answer, to: calls)
            }
        }
    }

    /// Each call's answer: the member of the batch's answer with its id. An answer that is not an
    /// array (a refusal of the whole stream: a caller not allowed, a body too large) is every call's.
    private static func distribute(_ answer: PeerAnswer, to calls: [PeerCall]) {
        guard calls.count > 1, let ranges = JSONScanner.elements(ofArray: answer.body.readableBytesView) else {
            for call in calls { call.promise.succeed(answer) }
            return
        }
        var members: [RPCID: ByteBuffer] = [:]
        members.reserveCapacity(ranges.count)
        for range in ranges {
            guard let member = answer.body.getSlice(at: answer.body.readerIndex + range.lowerBound, length: range.count),
                let idRange = JSONScanner.member("id", ofObject: member.readableBytesView),
                let idBytes = member.getSlice(at: member.readerIndex + idRange.lowerBound, length: idRange.count),
                let idValue = try? JSONParser.parse(idBytes.readableBytesView), let id = RPCID(idValue)
            else { continue }
            members[id] = member
        }
        for call in calls {
            guard let member = members[call.id] else {
                call.promise.fail(PeerExchangeError.incomplete("the batch's answer has no member for this call"))
                continue
            }
            guard member.readableBytes <= call.limit else {
                call.promise.fail(PeerExchangeError.answerTooLarge(limit: call.limit))
                continue
            }
            call.promise.succeed(PeerAnswer(status: answer.status, headers: answer.headers, body: member))
        }
    }
}

/// How many streams the channels to one peer opened and how many calls they carried (their ratio is
/// the mean batch): counted here, and in a service's `/metrics` as `mfa_rpc_client_streams_total` and
/// `mfa_rpc_client_calls_total` by peer.
public final class PeerTraffic: Sendable {
    private let streams = Atomic<Int>(0)
    private let calls = Atomic<Int>(0)
    private let counters: (streams: Counter, calls: Counter)?

    public var streamsSent: Int { streams.load(ordering: .relaxed) }
    public var callsSent: Int { calls.load(ordering: .relaxed) }

    /// Counted here only (a test's, a benchmark's channel).
    public init() {
        counters = nil
    }

    /// Counted in `registry` as well, labelled with this service and the peer.
    public init(registry: PrometheusCollectorRegistry, service: ServiceName, peer: ServiceName) {
        let labels = [("service", service.rawValue), ("peer", peer.rawValue)]
        counters = (
            registry.makeCounter(descriptor: Self.streamsName, labels: labels),
            registry.makeCounter(descriptor: Self.callsName, labels: labels)
        )
    }

    static var streamsName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "rpc_client", metricName: "streams", unitName: "total",
            helpText: "HTTP/2 streams sent to a peer, each one call or one batch of calls"
        )
    }
    static var callsName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "rpc_client", metricName: "calls", unitName: "total",
            helpText: "JSON-RPC calls sent to a peer over the network"
        )
    }

    func record(streams: Int, calls: Int) {
        self.streams.add(streams, ordering: .relaxed)
        self.calls.add(calls, ordering: .relaxed)
        counters?.streams.increment(by: Int64(streams))
        counters?.calls.increment(by: Int64(calls))
    }
}
