import JSONRPC
import Prometheus

/// The service's Prometheus registry and the RPC metrics recorded into it: a counter of calls per
/// method and outcome, and a latency histogram per method.
///
/// The registry is owned by the service, not bootstrapped globally, so several services can run
/// in one process (tests) without sharing counters.
public final class ServiceMetrics: RPCObserver, Sendable {
    public let registry = PrometheusCollectorRegistry()
    let service: ServiceName

    static let latencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
    ]

    /// `rpc_requests_total`
    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
        namespace: "rpc", metricName: "requests", unitName: "total", helpText: "JSON-RPC calls served, by method and outcome"
        )
    }
    /// `rpc_request_duration_seconds`
    static var latency: MetricNameDescriptor {
        MetricNameDescriptor(
        namespace: "rpc", metricName: "request_duration", unitName: "seconds", helpText: "Time to serve one JSON-RPC call"
        )
    }

    public init(service: ServiceName) {
        self.service = service
    }

    public func observe(method: String, outcome: RPCOutcome, duration: Duration) {
        let labels = [("service", service.rawValue), ("method", method)]
        registry.makeCounter(descriptor: Self.requests, labels: labels + [("outcome", outcome.rawValue)]).increment()
        registry.makeDurationHistogram(descriptor: Self.latency, labels: labels, buckets: Self.latencyBuckets)
            .recordNanoseconds(duration.nanoseconds)
    }

    /// Prometheus text exposition of everything recorded.
    public func exposition() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
