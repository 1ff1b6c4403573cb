import Hummingbird
import NIOCore

/// The public listener's request context: Hummingbird's basics plus the peer's address, which
/// SMS send limits count per client.
struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
