import PostgresNIO

/// What a database URL names: its servers, the kind of server to use, and how to log in to one.
extension Database {
    /// One `host:port` of the URL, or a directory holding the server's Unix socket.
    public struct Server: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// The server's Unix socket when `host` is a directory (as in libpq).
        public var unixSocketPath: String? {
            host.hasPrefix("/") ? "\(host)/.s.PGSQL.\(port)" : nil
        }

        public var description: String { unixSocketPath ?? (host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)") }
    }

    /// Which server may serve the pool: libpq's `target_session_attrs`, for the values a service that
    /// writes can use.
    public enum Target: String, Sendable, CaseIterable {
        /// The first server that accepts a connection.
        case any
        /// A server that takes writes: not in recovery, and `transaction_read_only` off by default.
        case readWrite = "read-write"
        /// A server not in recovery.
        case primary
    }

    /// Who connects, to what, with which pool options: everything of a pool but its server.
    public struct Login: Sendable {
        public var username: String
        public var password: String?
        public var database: String
        public var options: PostgresClient.Configuration.Options

        public init(username: String, password: String?, database: String, options: PostgresClient.Configuration.Options) {
            self.username = username
            self.password = password
            self.database = database
            self.options = options
        }

        /// A pool's configuration on `server`.
        public func client(on server: Server) -> PostgresClient.Configuration {
            var configuration =
                if let path = server.unixSocketPath {
                    PostgresClient.Configuration(unixSocketPath: path, username: username, password: password, database: database)
                } else {
                    PostgresClient.Configuration(
                        host: server.host, port: server.port, username: username, password: password, database: database, tls: .disable)
                }
            configuration.options = options
            return configuration
        }

        func connection(to server: Server) -> PostgresConnection.Configuration {
            var configuration =
                if let path = server.unixSocketPath {
                    PostgresConnection.Configuration(unixSocketPath: path, username: username, password: password, database: database)
                } else {
                    PostgresConnection.Configuration(
                        host: server.host, port: server.port, username: username, password: password, database: database, tls: .disable)
                }
            configuration.options.connectTimeout = .seconds(2)
            return configuration
        }
    }
}
