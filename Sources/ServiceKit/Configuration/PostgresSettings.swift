import Foundation
import PostgresNIO

/// A PostgreSQL connection read from a `postgres://user:password@host:port/database` URL.
public struct PostgresSettings: Sendable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var maximumConnections: Int

    public struct InvalidURL: Error, CustomStringConvertible {
        // The URL holds a password: never echo it.
        public var description: String { "postgres.url is not a postgres://user:password@host:port/database URL" }
    }

    public init(url: String, maximumConnections: Int) throws {
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
    }

    public func makeClient(logger: Logger) -> PostgresClient {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: .disable
        )
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = 1
        configuration.options.connectionIdleTimeout = .seconds(60)
        return PostgresClient(configuration: configuration, backgroundLogger: logger)
    }
}
