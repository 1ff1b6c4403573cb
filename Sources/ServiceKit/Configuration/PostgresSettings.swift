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
    /// Connections the pool keeps open however idle (all of them unless configured lower); above
    /// it, a connection idle for a minute closes.
    ///
    /// PostgresNIO's pool starts a timer task whenever a connection it may close, or must keep
    /// alive, goes idle, and cancels it at the next lease: several times per sign-in under load.
    /// A pool that keeps every connection and sends no keep-alive starts none; that made our
    /// process's CPU per TOTP sign-in fall by about 15 % (docs/performance.md, session 10).
    public var minimumConnections: Int
    /// How often an idle connection proves itself with `SELECT 1`; `nil` never (the default: worth
    /// its cost only when something between service and database drops idle connections).
    public var keepAlive: Duration?
    /// Statements the process lets PostgreSQL keep prepared (``StatementCache``); process-wide.
    public var preparedStatements: Int

    public struct InvalidURL: Error, CustomStringConvertible {
        // The URL holds a password: never echo it.
        public var description: String { "postgres.url is not a postgres://user:password@host:port/database URL" }
    }

    public init(
        url: String, maximumConnections: Int, minimumConnections: Int? = nil, keepAlive: Duration? = nil,
        preparedStatements: Int = 500
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
        self.minimumConnections = min(max(0, minimumConnections ?? maximumConnections), maximumConnections)
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
        return PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: .disable)
    }

    /// The pool; also sets the process's ``StatementCache`` capacity to `preparedStatements`.
    public func makeClient(logger: Logger) -> PostgresClient {
        var configuration = connection()
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = minimumConnections
        configuration.options.keepAliveBehavior = keepAlive.map { .init(frequency: $0) }
        // A connection above the minimum that stays idle for a minute closes, and its backend's
        // prepared statements with it.
        configuration.options.connectionIdleTimeout = .seconds(60)
        StatementCache.shared.capacity = preparedStatements
        return PostgresClient(
            configuration: configuration, eventLoopGroup: SpreadEventLoops(PostgresClient.defaultEventLoopGroup),
            backgroundLogger: logger
        )
    }
}
