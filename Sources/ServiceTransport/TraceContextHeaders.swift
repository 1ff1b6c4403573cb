import HTTPTypes
import Tracing

/// Reads trace context (`traceparent`, `tracestate`) from an incoming request's headers
/// (Hummingbird's `HTTPFields`, or an RPC stream's). Our own RPC callers send theirs in each request
/// object instead (``RPCRequestContext``), since calls sharing a stream cannot share its headers.
/// With tracing off the instrument is a no-op and nothing is read.
public struct HTTPFieldsExtractor: Extractor {
    public init() {}

    public func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
