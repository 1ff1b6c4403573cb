import Foundation
import PostgresNIO
import TenantStore

/// A PostgreSQL connection read from a `postgres://user:password@host:port/database` URL.
///
/// As in libpq, a host that is an absolute path (`%2Frun%2Fpostgresql`, or `?host=/run/postgresql`)
/// names the directory of the server's Unix socket, `.s.PGSQL.<port>` in it. On one machine the
/// socket spares both sides the loopback TCP stack on every statement.
public struct PostgresSettings: Sendable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var maximumConnections: Int
    /// Connections the pool keeps open however idle: one. Above it, a connection idle for a
    /// minute closes.
    ///
    /// Not configurable, because more is unsafe with PostgresNIO 1.33.2: after PostgreSQL has been
    /// unreachable, its pool returns to service with the one connection it kept retrying, fewer
    /// than a larger minimum, and the next lease that needs another connection fails the
    /// precondition `minimumConcurrentConnections <= stats.active` (PoolStateMachine+ConnectionGroup.swift)
    /// and traps, taking the service down. One is safe: the connection being retried counts.
    /// `OpsListenerTests.requestsWhilePostgresIsDown` caught it with a minimum of 8 in every run.
    public static let minimumConnections = 1
    /// How often an idle connection proves itself with `SELECT 1`; `nil` never (the default).
    ///
    /// PostgresNIO arms a timer task each time a connection it keeps alive goes idle, and cancels
    /// it at the next lease: several times per sign-in under load. Without keep-alive our
    /// process's CPU per TOTP sign-in fell by about a fifth (docs/performance.md).
    /// Worth its cost only where something between service and database drops idle connections.
    public var keepAlive: Duration?
    /// Statements the process lets PostgreSQL keep prepared (``StatementCache``); process-wide.
    public var preparedStatements: Int

    public struct InvalidURL: Error, CustomStringConvertible {
        // The URL holds a password: never echo it.
        public var description: String { "postgres.url is not a postgres://user:password@host:port/database URL" }
    }

    public init(
        url: String, maximumConnections: Int, keepAlive: Duration? = nil, preparedStatements: Int = 500
    ) throws {
        guard let components = URLComponents(string: url),
            components.scheme == "postgres" || components.scheme == "postgresql",
            let username = components.user
        else { throw InvalidURL() }
        let socketDirectory = components.queryItems?.first(where: { $0.name == "host" })?.value
        guard let host = socketDirectory ?? components.host.map({ $0.removingPercentEncoding ?? $0 }), !host.isEmpty else {
            throw InvalidURL()
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw InvalidURL() }
        self.host = host
        self.port = components.port ?? 5432
        self.username = username.removingPercentEncoding ?? username
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
        self.maximumConnections = maximumConnections
        self.keepAlive = keepAlive
        self.preparedStatements = preparedStatements
    }

    /// The server's Unix socket when `host` is a directory.
    public var unixSocketPath: String? {
        host.hasPrefix("/") ? "\(host)/.s.PGSQL.\(port)" : nil
    }

    /// Where and as whom to connect (through the Unix socket when `host` is a directory), to this
    /// URL's database or another on the same server; the pool's options stay PostgresNIO's.
    public func connection(to database: String? = nil) -> PostgresClient.Configuration {
        let database = database ?? self.database
        if let unixSocketPath {
            return PostgresClient.Configuration(unixSocketPath: unixSocketPath, username: username, password: password, database: database)
        }
        return PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: .disable)
    }

    /// The pool's size, kept connections, keep-alive and idle timeout.
    public var poolOptions: PostgresClient.Configuration.Options {
        var options = PostgresClient.Configuration.Options()
        options.maximumConnections = maximumConnections
        options.minimumConnections = min(Self.minimumConnections, maximumConnections)
        options.keepAliveBehavior = keepAlive.map { .init(frequency: $0) }
        // A connection above the minimum that stays idle for a minute closes, and its backend's
        // prepared statements with it.
        options.connectionIdleTimeout = .seconds(60)
        return options
    }

    /// The pool; also sets the process's ``StatementCache`` capacity to `preparedStatements`.
    public func makeClient(logger: Logger) -> PostgresClient {
        var configuration = connection()
        configuration.options = poolOptions
        StatementCache.shared.capacity = preparedStatements
        return PostgresClient(
            configuration: configuration, eventLoopGroup: SpreadEventLoops(PostgresClient.defaultEventLoopGroup),
            backgroundLogger: logger
        )
    }
}
