import JSONRPC
import Logging
import Synchronization

/// The services that run in this process, when one process runs several (`mfa-all-in-one`).
///
/// A client for one of them hands the call straight to that service's ``RPCDispatcher``, params and
/// result as values: the same caller policy per method, the same errors, logging and metrics, but no
/// JSON document, socket, TLS, HTTP/2 stream or wake-up in between. A service becomes
/// callable when its RPC listener would open (after migrations and key set-up); until then a call
/// fails like a call to a peer that is not listening yet.
public final class LocalPeers: Sendable {
    /// The services this process runs, fixed at start-up.
    public let services: Set<ServiceName>
    private let started = Mutex<[ServiceName: Started]>([:])

    /// A service that answers calls: its dispatcher, and the logger its handlers log with.
    struct Started: Sendable {
        let dispatcher: RPCDispatcher
        let logger: Logger
    }

    public init(_ services: Set<ServiceName>) {
        self.services = services
    }

    /// Whether `service` runs in this process (its clients then never use the network).
    public func hosts(_ service: ServiceName) -> Bool {
        services.contains(service)
    }

    /// `service` has finished starting and answers calls from now on.
    public func open(_ service: ServiceName, dispatcher: RPCDispatcher, logger: Logger) {
        precondition(services.contains(service), "\(service.rawValue) is not one of this process's services")
        started.withLock { $0[service] = Started(dispatcher: dispatcher, logger: logger) }
    }

    /// A service that has finished starting; `nil` before then.
    func service(_ service: ServiceName) -> Started? {
        started.withLock { $0[service] }
    }
}
