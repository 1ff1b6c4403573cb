import Foundation
import PostgresNIO
import TenantStore

/// A PostgreSQL connection read from a `postgres://user:password@host:port/database` URL.
///
/// As in libpq, a host that is an absolute path (`%2Frun%2Fpostgresql`, or `?host=/run/postgresql`)
/// names the directory of the server's Unix socket, `.s.PGSQL.<port>` in it. On one machine the
/// socket spares both sides the loopback TCP stack on every statement.
///
/// Also as in libpq, the URL may name several servers, `host1:5432,host2:5432`, with
/// `?target_session_attrs=read-write` (or `primary`; `any` is the default): the service uses the first
/// that qualifies and follows a failover to another (``Database``).
public struct PostgresSettings: Sendable {
    /// The servers in the URL's order; one in the common case.
    public var servers: [Database.Server]
    public var target: Database.Target
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
        var reason = "is not a postgres://user:password@host:port/database URL"
        // The URL holds a password: never echo it.
        public var description: String { "postgres.url \(reason)" }
    }

    public init(
        url: String, maximumConnections: Int, keepAlive: Duration? = nil, preparedStatements: Int = 500
    ) throws {
        // URLComponents reads one host: the host list is taken out and read here.
        guard let schemeEnd = url.range(of: "://") else { throw InvalidURL() }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        let hostList = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let single = url.replacingCharacters(in: hostList.startIndex..<hostList.endIndex, with: "placeholder")
        guard let components = URLComponents(string: single),
            components.scheme == "postgres" || components.scheme == "postgresql",
            let username = components.user
        else { throw InvalidURL() }
        let query = components.queryItems ?? []
        var servers = try hostList.split(separator: ",", omittingEmptySubsequences: false).map(Self.server)
        if let socketDirectory = query.first(where: { $0.name == "host" })?.value {
            guard servers.count == 1, !socketDirectory.isEmpty else { throw InvalidURL() }
            servers[0].host = socketDirectory
        }
        guard servers.allSatisfy({ !$0.host.isEmpty }) else { throw InvalidURL() }
        let target = query.first(where: { $0.name == "target_session_attrs" })?.value ?? "any"
        guard let target = Database.Target(rawValue: target) else {
            throw InvalidURL(
                reason: "has target_session_attrs \(target): this service writes, so it takes "
                    + Database.Target.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw InvalidURL() }
        self.servers = servers
        self.target = target
        self.username = username.removingPercentEncoding ?? username
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
        self.maximumConnections = maximumConnections
        self.keepAlive = keepAlive
        self.preparedStatements = preparedStatements
    }

    /// One `host`, `host:port` or `[v6]:port` of the host list.
    private static func server(_ entry: Substring) throws -> Database.Server {
        var host = entry
        var port = 5432
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw InvalidURL() }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()) else { throw InvalidURL() }
                port = value
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]) else { throw InvalidURL() }
            port = value
            host = host[..<colon]
        }
        guard (1...65535).contains(port) else { throw InvalidURL() }
        return Database.Server(host: host.removingPercentEncoding ?? String(host), port: port)
    }

    /// The first server's host; its directory when it is a Unix socket.
    public var host: String { servers[0].host }
    public var port: Int { servers[0].port }

    /// The first server's Unix socket when its host is a directory.
    public var unixSocketPath: String? { servers[0].unixSocketPath }

    /// Where and as whom to connect (the first server; through the Unix socket when its host is a
    /// directory), to this URL's database or another on the same server; the pool's options stay
    /// PostgresNIO's.
    public func connection(to database: String? = nil) -> PostgresClient.Configuration {
        login(database: database ?? self.database, options: .init()).client(on: servers[0])
    }

    private func login(database: String, options: PostgresClient.Configuration.Options) -> Database.Login {
        Database.Login(username: username, password: password, database: database, options: options)
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

    /// The pool, on the server the URL's `target_session_attrs` chooses; also sets the process's
    /// ``StatementCache`` capacity to `preparedStatements`.
    public func makeDatabase(logger: Logger) -> Database {
        StatementCache.shared.capacity = preparedStatements
        return Database(
            servers: servers, target: target,
            login: login(database: database, options: poolOptions),
            eventLoopGroup: SpreadEventLoops(PostgresClient.defaultEventLoopGroup), logger: logger
        )
    }
}
