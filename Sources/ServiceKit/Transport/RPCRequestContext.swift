import Hummingbird
import NIOCore

/// The request context of the `/rpc` listener: keeps the channel so the handler can read the
/// TLS peer certificate (on HTTP/2 the TLS handler sits on the parent connection channel).
public struct RPCRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
