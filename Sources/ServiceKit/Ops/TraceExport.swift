import BuildInfo
import OTel
import ServiceLifecycle

/// Distributed traces, off unless `tracing.otlpEndpoint` names an OTLP/HTTP collector's traces URL
/// (`http://collector:4318/v1/traces`). Then every public request is a span in the gateway, every
/// RPC a client span in the caller and a server span in the callee, joined by W3C `traceparent`
/// headers, exported as OTLP/HTTP JSON by swift-otel's batch processor. The standard `OTEL_*`
/// variables (sampler, batch delay, headers) apply on top. Logs and metrics keep their own paths
/// (standard output, `/metrics`): only traces go to the collector.
public enum TraceExport {
    /// Installs the process's tracer (once per process: the four services of `mfa-all-in-one`
    /// share it) and returns the service that exports, or `nil` when tracing is off.
    public static func bootstrap(endpoint: String?, serviceName: String) throws -> (any Service)? {
        guard let endpoint, !endpoint.isEmpty else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.resourceAttributes["service.version"] = BuildInfo.version
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.traces.otlpExporter.endpoint = endpoint
        configuration.traces.otlpExporter.protocol = .httpJSON
        return try OTel.bootstrap(configuration: configuration)
    }
}
