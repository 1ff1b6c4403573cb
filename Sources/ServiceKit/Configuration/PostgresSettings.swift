import Foundation
import PostgresNIO
import TenantStore

/// A PostgreSQL connection read from a `postgres://user:password@host:port/database` URL.
public struct PostgresSettings: Sendable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var maximumConnections: Int
    /// Statements the process lets PostgreSQL keep prepared (``StatementCache``); process-wide.
    public var preparedStatements: Int

    public struct InvalidURL: Error, CustomStringConvertible {
        // The URL holds a password: never echo it.
        public var description: String { "postgres.url is not a postgres://user:password@host:port/database URL" }
    }

    public init(url: String, maximumConnections: Int, preparedStatements: Int = 500) throws {
        guard let components = URLComponents(string: url),
            components.scheme == "postgres" || components.scheme == "postgresql",
            let host = components.host, let username = components.user
        else { throw InvalidURL() }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw InvalidURL() }
        self.host = host
        self.port = components.port ?? 5432
        self.username = username.removingPercentEncoding ?? username
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
        self.maximumConnections = maximumConnections
        self.preparedStatements = preparedStatements
    }

    /// The pool; also sets the process's ``StatementCache`` capacity to `preparedStatements`.
    public func makeClient(logger: Logger) -> PostgresClient {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: .disable
        )
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = 1
        // An idle connection closes after a minute, and its backend's prepared statements with it.
        configuration.options.connectionIdleTimeout = .seconds(60)
        StatementCache.shared.capacity = preparedStatements
        return PostgresClient(
            configuration: configuration, eventLoopGroup: SpreadEventLoops(PostgresClient.defaultEventLoopGroup),
            backgroundLogger: logger
        )
    }
}
