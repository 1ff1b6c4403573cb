import BuildInfo
import JSONRPC
import Prometheus
import ServiceTransport
import Synchronization

/// The service's Prometheus registry and the RPC metrics recorded into it: a counter of calls per
/// method and outcome, and a latency histogram per method.
///
/// The registry is owned by the service, not bootstrapped globally, so several services can run
/// in one process (tests) without sharing counters.
public final class ServiceMetrics: RPCObserver, Sendable {
    public let registry = PrometheusCollectorRegistry()
    let service: ServiceName

    public static let latencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
    ]

    /// `mfa_rpc_requests_total`
    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "rpc", metricName: "requests", unitName: "total",
            helpText: "JSON-RPC calls served, by method and outcome"
        )
    }
    /// `mfa_rpc_request_duration_seconds`
    static var latency: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "rpc", metricName: "request_duration", unitName: "seconds",
            helpText: "Time to serve one JSON-RPC call"
        )
    }

    /// The metrics of each method and outcome seen so far. The registry would return the same ones,
    /// but finds them by building and hashing their full names on every call.
    private let recorders = Mutex<[Recorder.Key: Recorder]>([:])

    struct Recorder: Sendable {
        struct Key: Hashable { let method: String, outcome: RPCOutcome }
        let calls: Counter
        let latency: DurationHistogram
    }

    public init(service: ServiceName) {
        self.service = service
    }

    /// `mfa_build_info{service, version, mode} 1`: what runs, for joins and for spotting a fleet
    /// that runs two versions during an upgrade.
    static var buildInfo: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", metricName: "build_info", helpText: "Always 1; the labels say which build runs in which mode"
        )
    }

    func recordBuild(mode: DeploymentMode) {
        registry.makeGauge(
            descriptor: Self.buildInfo,
            labels: [("service", service.rawValue), ("version", BuildInfo.version), ("mode", mode.rawValue)]
        ).set(Int64(1))
    }

    public func observe(method: String, outcome: RPCOutcome, duration: Duration) {
        let recorder = recorder(for: .init(method: method, outcome: outcome))
        recorder.calls.increment()
        recorder.latency.recordNanoseconds(duration.nanoseconds)
    }

    private func recorder(for key: Recorder.Key) -> Recorder {
        if let known = recorders.withLock({ $0[key] }) { return known }
        let labels = [("service", service.rawValue), ("method", key.method)]
        let recorder = Recorder(
            calls: registry.makeCounter(descriptor: Self.requests, labels: labels + [("outcome", key.outcome.rawValue)]),
            latency: registry.makeDurationHistogram(descriptor: Self.latency, labels: labels, buckets: Self.latencyBuckets)
        )
        recorders.withLock { $0[key] = recorder }
        return recorder
    }

    /// Prometheus text exposition of everything recorded.
    public func exposition() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
