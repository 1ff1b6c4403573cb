import HTTPTypes
import NIOHTTP1
import Tracing

/// How trace context (`traceparent`, `tracestate`) rides on our HTTP headers: written into an
/// outgoing RPC (AsyncHTTPClient's `HTTPHeaders`), read from an incoming request (Hummingbird's
/// `HTTPFields`). With tracing off the instrument is a no-op and nothing is written.
public struct HTTPHeadersInjector: Injector {
    public init() {}

    public func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier.replaceOrAdd(name: key, value: value)
    }
}

public struct HTTPFieldsExtractor: Extractor {
    public init() {}

    public func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
