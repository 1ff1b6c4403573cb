import AsyncHTTPClient
import Contracts
import Logging
import PluginHTTP
import Prometheus
import ServiceKit

@testable import GatewayApp

extension BlockingFunctions {
    /// The flows' functions against scripted peers: a scope without `blockingFunctions` never
    /// reaches the HTTP client, which is the process's shared one.
    static func scripted(registry: PeerClient<FactorRegistryAPI>, sessions: PeerClient<SessionTokenAPI>, settings: CachedSettings)
        -> BlockingFunctions
    {
        BlockingFunctions(
            registry: registry, settings: settings,
            caller: BlockingFunctionCaller(
                sessions: sessions, call: OutsideCall(client: .shared, timeout: BlockingFunctionCaller.deadline),
                addresses: FunctionAddressPolicy(allowsPrivateAddresses: false), requiresHTTPS: true,
                registry: PrometheusCollectorRegistry(), logger: Logger(label: "test")
            )
        )
    }
}
