import Foundation
import NIOCore
import Prometheus
import Synchronization

/// What one listener lets its clients hold (issue 57, F-2): at most `limit` connections in all and
/// at most `perAddress` from one client address (``ClientAddressKey``: an IPv6 client by its /64).
/// The listener's cap alone let one host take every slot: about 32 TLS handshakes a second from one
/// address kept every other HTTPS client out while `/healthz` said 200. A per-address cap well below
/// the listener's leaves the rest to everyone else; 256 is what a carrier NAT, many subscribers
/// behind one address, still fits in. Connections from `exempt` addresses (the load balancers in
/// `public.trustedProxies`, whose forwarded client does not exist yet when a connection is accepted)
/// count only toward the listener's cap; per-request limits go on using the forwarded client.
///
/// Refusals are counted (`mfa_connections_refused_total{listener, reason}`), logged at most once per
/// ``logInterval`` per listener, and told in `/readyz`'s `connections` detail, which stays ready: one
/// client's flood must not take every instance out of the load balancer (docs/operations.md).
public final class ConnectionGuard: Sendable {
    public enum Refusal: String, Sendable {
        /// The client's address holds `perAddress` connections already.
        case perAddress
        /// The listener holds `limit` connections already.
        case listenerFull
    }

    /// What a refusal's log line and `/readyz` say.
    public struct Summary: Sendable, Equatable {
        public var open: Int
        public var refusedPerAddress: Int
        public var refusedListenerFull: Int
        /// Addresses at their limit now.
        public var addressesAtLimit: Int
    }

    public let listener: String
    public let limit: Int
    public let perAddress: Int
    let exempt: Set<String>
    static let logInterval: Duration = .seconds(10)

    private struct State {
        var open = 0
        var byAddress: [String: Int] = [:]
        var refusedPerAddress = 0
        var refusedListenerFull = 0
        var lastLogged: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let refusedCounters: [Refusal: Counter]

    /// `exempt`: addresses (any spelling) whose connections are not counted per address.
    public init(listener: String, limit: Int, perAddress: Int, exempt: [String] = [], registry: PrometheusCollectorRegistry? = nil) {
        self.listener = listener
        self.limit = limit
        self.perAddress = min(perAddress, limit)
        self.exempt = Set(exempt.map(ClientAddressKey.canonical))
        var counters: [Refusal: Counter] = [:]
        if let registry {
            for reason in [Refusal.perAddress, .listenerFull] {
                counters[reason] = registry.makeCounter(
                    descriptor: Self.refusedDescriptor, labels: [("listener", listener), ("reason", reason.rawValue)]
                )
            }
        }
        refusedCounters = counters
    }

    /// `mfa_connections_refused_total`
    static var refusedDescriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "connections", metricName: "refused", unitName: "total",
            helpText: "Connections a listener closed at once: its client's address, or the listener, was at its limit"
        )
    }

    /// The key a remote address is counted under, or `nil` for one counted only toward the listener
    /// (an exempt address, or none known).
    func key(for remote: SocketAddress?) -> String? {
        guard let ip = remote?.ipAddress else { return nil }
        let canonical = ClientAddressKey.canonical(ip)
        if exempt.contains(canonical) { return nil }
        return ClientAddressKey.limitKey(canonical)
    }

    /// Counts a new connection from `key` in, or says why not.
    func admit(_ key: String?) -> Refusal? {
        let refusal: Refusal? = state.withLock { state in
            if state.open >= limit {
                state.refusedListenerFull += 1
                return .listenerFull
            }
            if let key {
                let held = state.byAddress[key, default: 0]
                if held >= perAddress {
                    state.refusedPerAddress += 1
                    return .perAddress
                }
                state.byAddress[key] = held + 1
            }
            state.open += 1
            return nil
        }
        if let refusal { refusedCounters[refusal]?.increment() }
        return refusal
    }

    func release(_ key: String?) {
        state.withLock { state in
            state.open -= 1
            guard let key, let held = state.byAddress[key] else { return }
            if held <= 1 {
                state.byAddress[key] = nil
            } else {
                state.byAddress[key] = held - 1
            }
        }
    }

    /// Whether a refusal now should be logged: at most once per ``logInterval``.
    func shouldLog(now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            if let last = state.lastLogged, now - last < Self.logInterval { return false }
            state.lastLogged = now
            return true
        }
    }

    public var summary: Summary {
        state.withLock { state in
            Summary(
                open: state.open, refusedPerAddress: state.refusedPerAddress, refusedListenerFull: state.refusedListenerFull,
                addressesAtLimit: state.byAddress.values.filter { $0 >= perAddress }.count
            )
        }
    }

    /// One line for `/readyz`: what is held, and what was refused since the process started.
    public var detail: String {
        let now = summary
        return "\(listener): \(now.open) of \(limit) held; \(now.addressesAtLimit) addresses at their limit of \(perAddress); "
            + "refused since start: \(now.refusedPerAddress) per address, \(now.refusedListenerFull) listener full"
    }
}
