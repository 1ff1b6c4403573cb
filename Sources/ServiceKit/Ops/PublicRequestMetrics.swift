import Prometheus
import Synchronization

/// The public listener's metrics, in the gateway's registry beside its RPC ones:
/// `public_requests_total{service, operation, status}` and
/// `public_request_duration_seconds{service, operation}` (from the request's head to its answer).
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
        /// A path or method the contract does not have (answered 404).
        case unmatched
    }

    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "public", metricName: "requests", unitName: "total",
            helpText: "Public API requests answered, by operation and HTTP status"
        )
    }
    static var latency: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "public", metricName: "request_duration", unitName: "seconds",
            helpText: "Time to answer one public API request"
        )
    }

    private let registry: PrometheusCollectorRegistry
    private let service: ServiceName
    private let counters = Mutex<[CounterKey: Counter]>([:])
    private let histograms = Mutex<[String: DurationHistogram]>([:])

    private struct CounterKey: Hashable {
        let operation: String
        let status: Int
    }

    public init(_ metrics: ServiceMetrics) {
        registry = metrics.registry
        service = metrics.service
    }

    public func observe(operation: String, status: Int, duration: Duration) {
        counter(.init(operation: operation, status: status)).increment()
        histogram(operation).recordNanoseconds(duration.nanoseconds)
    }

    public func observe(_ route: Route, status: Int, duration: Duration) {
        observe(operation: route.rawValue, status: status, duration: duration)
    }

    // Kept per label set: the registry would return the same metric, but builds and hashes its
    // full name on every call (see ServiceMetrics).
    private func counter(_ key: CounterKey) -> Counter {
        if let known = counters.withLock({ $0[key] }) { return known }
        let made = registry.makeCounter(
            descriptor: Self.requests,
            labels: [("service", service.rawValue), ("operation", key.operation), ("status", String(key.status))]
        )
        counters.withLock { $0[key] = made }
        return made
    }

    private func histogram(_ operation: String) -> DurationHistogram {
        if let known = histograms.withLock({ $0[operation] }) { return known }
        let made = registry.makeDurationHistogram(
            descriptor: Self.latency, labels: [("service", service.rawValue), ("operation", operation)],
            buckets: ServiceMetrics.latencyBuckets
        )
        histograms.withLock { $0[operation] = made }
        return made
    }
}
