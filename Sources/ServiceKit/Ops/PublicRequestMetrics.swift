import Prometheus
import ServiceTransport
import Synchronization

/// The public listener's metrics, in the gateway's registry beside its RPC ones:
/// `mfa_public_requests_total{service, operation, status}` and
/// `mfa_public_request_duration_seconds{service, operation}` (from the request's head to its answer).
///
/// `operation` is the contract's operation id, or one of ``Route``'s fixed names for what is not an
/// operation; never the request's path, which any client chooses and which would make a label
/// value (and a time series) per hostile request.
public final class PublicRequestMetrics: Sendable {
    /// What a request was, when it was not one of the contract's operations.
    public enum Route: String, Sendable {
        case preflight, status
        case signingKeys = "signing_keys"
        case emulator
        /// The development demo page and its files.
        case demo
        /// A path or method the contract does not have (answered 404).
        case unmatched
    }

    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "public", metricName: "requests", unitName: "total",
            helpText: "Public API requests answered, by operation and HTTP status"
        )
    }
    static var latency: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "public", metricName: "request_duration", unitName: "seconds",
            helpText: "Time to answer one public API request"
        )
    }

    private let registry: PrometheusCollectorRegistry
    private let service: ServiceName
    /// The metrics of each operation and status seen so far, kept as ``ServiceMetrics`` keeps its
    /// own: the registry would return the same ones, but builds and hashes their names on every call.
    private let recorders = Mutex<[Recorder.Key: Recorder]>([:])

    private struct Recorder: Sendable {
        struct Key: Hashable { let operation: String, status: Int }
        let requests: Counter
        /// One per operation; the registry hands every status of an operation the same histogram.
        let latency: DurationHistogram
    }

    public init(_ metrics: ServiceMetrics) {
        registry = metrics.registry
        service = metrics.service
    }

    public func observe(operation: String, status: Int, duration: Duration) {
        let recorder = recorder(for: .init(operation: operation, status: status))
        recorder.requests.increment()
        recorder.latency.recordNanoseconds(duration.nanoseconds)
    }

    private func recorder(for key: Recorder.Key) -> Recorder {
        if let known = recorders.withLock({ $0[key] }) { return known }
        let labels = [("service", service.rawValue), ("operation", key.operation)]
        let recorder = Recorder(
            requests: registry.makeCounter(descriptor: Self.requests, labels: labels + [("status", String(key.status))]),
            latency: registry.makeDurationHistogram(descriptor: Self.latency, labels: labels, buckets: ServiceMetrics.latencyBuckets)
        )
        recorders.withLock { $0[key] = recorder }
        return recorder
    }
}
