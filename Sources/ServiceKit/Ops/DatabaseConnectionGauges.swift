import Logging
import PostgresNIO
import Prometheus
import ServiceTransport
import TenantStore

/// `mfa_db_connections{service, state}`: this service's connections to its database as PostgreSQL
/// sees them (`pg_stat_activity` rows of its own role in its own database, so every instance of the
/// service is counted, and this sampler's own query shows as one `active`), sampled every 15 s; and
/// `mfa_db_pool_max_connections{service}`, the pool's configured ceiling per instance. PostgresNIO
/// keeps its pool's own figures internal, so the database is asked instead: a pool that stays at its
/// ceiling of `active` connections is the one whose requests wait.
struct DatabaseConnectionGauges: Sendable {
    static let states = ["active", "idle", "idle in transaction", "idle in transaction (aborted)"]

    static var connections: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "db", metricName: "connections",
            helpText: "Connections of this service's role to its database, by state (pg_stat_activity)"
        )
    }
    static var ceiling: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "db", metricName: "pool_max_connections",
            helpText: "The connection pool's configured maximum, per instance"
        )
    }

    let client: Database
    let gauges: [String: Gauge]
    let logger: Logger

    init(client: Database, maximumConnections: Int, service: ServiceName, registry: PrometheusCollectorRegistry, logger: Logger) {
        self.client = client
        self.logger = logger
        var gauges: [String: Gauge] = [:]
        for state in Self.states {
            gauges[state] = registry.makeGauge(
                descriptor: Self.connections,
                labels: [("service", service.rawValue), ("state", state.replacingOccurrences(of: " ", with: "_"))]
            )
        }
        self.gauges = gauges
        registry.makeGauge(descriptor: Self.ceiling, labels: [("service", service.rawValue)]).set(Int64(maximumConnections))
    }

    func service() -> PeriodicService {
        PeriodicService("database connection gauges", every: .seconds(15), start: .immediately, logger: logger) {
            try await sample()
        }
    }

    func sample() async throws {
        var counts: [String: Int64] = [:]
        for row in try await client.run(ReadConnectionStates(), in: .control, logger: logger) { counts[row.state] = row.connections }
        for (state, gauge) in gauges { gauge.set(counts[state] ?? 0) }
    }

    /// Our role's connections to our database by state: a statement about the server, whichever
    /// schema it is given.
    struct ReadConnectionStates: Statement {
        typealias Row = ConnectionState
        static var isCached: Bool { false }

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT coalesce(state, 'unknown') AS state, count(*)::int8 AS connections FROM pg_stat_activity
            WHERE datname = current_database() AND usename = current_user GROUP BY 1
            """
        }
    }

    /// How many of our connections are in one state.
    struct ConnectionState: StatementRow {
        let state: String
        let connections: Int64

        init(_ columns: RowColumns) throws {
            state = try columns("state")
            connections = try columns("connections")
        }
    }
}
