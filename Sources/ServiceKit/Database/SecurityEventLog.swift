import AuthVocabulary
import Configuration
import Contracts
import Foundation
import JSONRPC
import Logging
import PostgresNIO
import Prometheus
import ServiceTransport
import Synchronization
import TenantStore

/// A service's part of the audit trail: `security_events` in each tenant schema of its own
/// database, append-only, written in the same transaction as the change an event records (the
/// `on: connection` form), so nothing is recorded that did not happen and nothing happens
/// unrecorded. The client's address, user agent and the kind of caller come from the bound
/// ``RequestOrigin``. `audit.list` reads it (the gateway merges the services' trails);
/// `mfa_security_events_total{service,scope,type}` counts it.
public struct SecurityEventLog: Sendable {
    /// The trail's table in every schema; the TOTP check writes its record in the same statement.
    public static let table: SQLText = "security_events"

    public let source: String
    let client: Database
    let counters: LabeledCounters
    let logger: Logger

    public init(source: String, client: Database, registry: PrometheusCollectorRegistry, logger: Logger) {
        self.source = source
        self.client = client
        self.counters = LabeledCounters(registry: registry)
        self.logger = logger
    }

    public static let migration = TenantMigration(
        "CreateSecurityEvents",
        [
            """
            CREATE TABLE security_events (
                id bigserial PRIMARY KEY,
                at timestamptz NOT NULL DEFAULT now(),
                at_micros bigint NOT NULL DEFAULT (extract(epoch FROM now()) * 1000000)::bigint,
                type text NOT NULL,
                local_id text,
                actor text NOT NULL,
                client_address text,
                user_agent text,
                details jsonb NOT NULL DEFAULT '{}'
            )
            """,
            "CREATE INDEX security_events_order ON security_events (at_micros, id)",
            "CREATE INDEX security_events_at ON security_events (at)",
            "CREATE INDEX security_events_account ON security_events (local_id, at_micros)",
        ]
    )

    /// Events older than `retention` (400 days by default, `audit.retentionDays`) are deleted.
    public static func retention(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "security events", table: "security_events", key: "id", column: "at", retention: retention, indexed: true
        )
    }

    static var events: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", metricName: "security_events", unitName: "total",
            helpText: "Audit trail events written, by service, tenant schema and type"
        )
    }

    /// `mfa_second_factor_checks_total{service, kind, outcome}`: second-factor codes checked at
    /// sign-in, by kind (`totp`, `phone`) and outcome; `rejected` climbing against `accepted` is
    /// guessing, `throttled` is the guessing limits at work.
    static var secondFactorChecks: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "second_factor", metricName: "checks", unitName: "total",
            helpText: "Second-factor codes checked at sign-in, by kind and outcome"
        )
    }

    public enum CheckOutcome: String, Sendable {
        case accepted, rejected, throttled
    }

    public func countSecondFactorCheck(kind: FactorKind, outcome: CheckOutcome) {
        counters.increment(Self.secondFactorChecks, [("service", source), ("kind", kind.rawValue), ("outcome", outcome.rawValue)])
    }

    /// Records `type` inside `connection`'s transaction.
    public func record(
        _ type: SecurityEventType, localId: String?, details: [String: String] = [:], in schema: TenantSchema,
        on connection: PostgresConnection
    ) async throws {
        try await connection.run(InsertEvent(type: type, localId: localId, details: details), in: schema, logger: logger)
        count(type, schema)
    }

    /// Records `type` on its own: for what changes nothing (a refused sign-in).
    public func record(_ type: SecurityEventType, localId: String?, details: [String: String] = [:], in schema: TenantSchema)
        async throws
    {
        try await client.run(InsertEvent(type: type, localId: localId, details: details), in: schema, logger: logger)
        count(type, schema)
    }

    /// Counts an event a caller wrote in its own statement (``actor``, ``clientAddress`` and
    /// ``userAgent`` give what the row holds).
    public func count(_ type: SecurityEventType, _ schema: TenantSchema) {
        counters.increment(Self.events, [("service", source), ("scope", schema.name), ("type", type.rawValue)])
    }

    /// The bound origin's values, for a statement that writes its event itself.
    public static var actor: String { RequestOrigin.current?.actor ?? "system" }
    public static var clientAddress: String? { RequestOrigin.current?.clientAddress }
    public static var userAgent: String? { RequestOrigin.current?.userAgent }

    /// `audit.list`: this service's events of a scope, newest first.
    public func list(_ params: ListSecurityEvents.Params, in schema: TenantSchema) async throws -> ListSecurityEvents.Result {
        let rows = try await client.run(ListEvents(params: params, source: source), in: schema, logger: logger)
        var events: [SecurityEvent] = []
        for row in rows {
            let time = Date(timeIntervalSince1970: Double(row.atMicros) / 1_000_000).formatted(
                .iso8601.year().month().day().time(includingFractionalSeconds: true)
            )
            events.append(
                SecurityEvent(
                    source: source, id: row.id, atMicros: row.atMicros, time: time, type: row.type, localId: row.localId,
                    actor: row.actor, clientAddress: row.clientAddress, userAgent: row.userAgent,
                    details: (try? JSONDecoder().decode([String: String].self, from: Data(row.details.utf8))) ?? [:]
                )
            )
        }
        return .init(events: events)
    }
}

/// Prometheus counters made on first use and kept by their labels (the registry would find them
/// again, but builds and hashes the full name on every call).
public final class LabeledCounters: Sendable {
    let registry: PrometheusCollectorRegistry
    private let counters = Mutex<[String: Counter]>([:])

    public init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    public func increment(_ descriptor: MetricNameDescriptor, _ labels: [(String, String)]) {
        let key = descriptor.metricName + labels.map { "|\($0.1)" }.joined()
        if let known = counters.withLock({ $0[key] }) { return known.increment() }
        let counter = registry.makeCounter(descriptor: descriptor, labels: labels)
        counters.withLock { $0[key] = counter }
        counter.increment()
    }
}

extension SecurityEventLog {
    /// `audit.retentionDays` (400 by default): how long the trail keeps an event.
    public static func retentionDays(_ reader: ConfigReader) -> RetentionRule {
        retention(.seconds(reader.int(forKey: "audit.retentionDays", default: 400) * 24 * 3600))
    }
}

extension RPCMethodTable {
    /// `audit.list` for the gateway: `schema` resolves the scope (an unknown tenant is its error).
    public mutating func registerAudit(
        _ log: SecurityEventLog, schema: @escaping @Sendable (ListSecurityEvents.Params) async throws -> TenantSchema
    ) {
        register(ListSecurityEvents.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            try await log.list(params, in: try await schema(params))
        }
    }
}
