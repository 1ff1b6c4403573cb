import HTTPTypes
import Tracing

/// How trace context (`traceparent`, `tracestate`) rides on our HTTP headers: written into an
/// outgoing RPC (a ``PeerChannel`` request's header list), read from an incoming request
/// (Hummingbird's `HTTPFields`). With tracing off the instrument is a no-op and nothing is written.
struct HeaderListInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [(String, String)]) {
        carrier.removeAll { $0.0 == key }
        carrier.append((key, value))
    }
}

public struct HTTPFieldsExtractor: Extractor {
    public init() {}

    public func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
