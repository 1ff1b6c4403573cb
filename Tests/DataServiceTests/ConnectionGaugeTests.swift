import DataServiceTesting
import Prometheus
import ServiceTesting
import Testing

@testable import ServiceKit

extension DataServiceStatements {
    /// The gauges of a data service's connections to its database, by state, as `/metrics` shows
    /// them: read from PostgreSQL's own view of them, for this service's role and database only.
    @Suite("Database connection gauges (in-process, PostgreSQL)")
    struct ConnectionGaugeTests {
        @Test("a sample counts the service's own connections by state and states its pool's ceiling")
        func sampled() async throws {
            try await TwoScopeServices.withServices(project: "connection-gauges") { services in
                let registry = services[.factorRegistry]
                let database = try #require(registry.host.database)
                let metrics = PrometheusCollectorRegistry()
                let gauges = DatabaseConnectionGauges(
                    client: database, maximumConnections: 7, service: .factorRegistry, registry: metrics, logger: registry.host.logger)
                try await gauges.sample()
                var buffer: [UInt8] = []
                metrics.emit(into: &buffer)
                let exposition = String(decoding: buffer, as: UTF8.self)
                #expect(exposition.contains(#"mfa_db_pool_max_connections{service="factor-registry"} 7.0"#))
                // The sample's own statement is running on one of the service's connections as it counts.
                let active = exposition.split(separator: "\n").first {
                    $0.hasPrefix(#"mfa_db_connections{service="factor-registry",state="active"}"#)
                }
                let count = active.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) } ?? 0
                #expect(count >= 1, "\(exposition)")
                // Every state has its gauge, a state with no connection at 0.
                for state in ["idle", "idle_in_transaction", "idle_in_transaction_(aborted)"] {
                    #expect(exposition.contains(#"mfa_db_connections{service="factor-registry",state="\#(state)"}"#))
                }
            }
        }
    }
}
