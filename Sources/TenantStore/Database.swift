import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// A service's PostgreSQL: a connection pool on one server, and, when the configuration names several
/// servers (a libpq-style multi-host URL), the choice among them, followed across a failover.
///
/// PostgresNIO's pool connects to one address for its whole life, so the choice libpq makes for each
/// connection (`target_session_attrs`) is made here for the pool: the servers are tried in the order
/// given, and the first that qualifies gets a pool. A connection of its own asks the chosen server
/// every second; when it stops qualifying or answering, or a call fails because the server went away
/// or stopped taking writes (a standby promoted, the old primary gone), the servers are tried again,
/// the current one first, and a pool on the new primary replaces the old one. Calls during the switch fail
/// as PostgreSQL being unreachable (callers answer 503, retry later); nothing is replayed, so a write is
/// never applied twice. With one server this is the pool itself and nothing else happens.
///
/// The current server is kept while it qualifies, even if one earlier in the list comes back: a former
/// primary restarted as a primary would otherwise take the writes back (PostgreSQL has no fencing of
/// its own; docs/operations.md says to rejoin it as a standby).
public final class Database: Sendable {
    private struct Current: Sendable {
        var client: PostgresClient?
        var server: Server?
    }

    /// The servers in the URL's order.
    public let servers: [Server]
    public let target: Target
    private let login: Login?
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let current: Mutex<Current>
    /// Set when a call failed in a way a failover explains: the servers are tried again.
    private let failureReported = Atomic<Bool>(false)

    /// A pool on the server `target` chooses among `servers`.
    public init(servers: [Server], target: Target, login: Login, eventLoopGroup: any EventLoopGroup, logger: Logger) {
        precondition(!servers.isEmpty, "a database needs a server")
        self.servers = servers
        self.target = target
        self.login = login
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        if servers.count == 1 {
            // Nothing to choose: the pool is made now and calls can queue before `run()` starts it.
            let client = PostgresClient(
                configuration: login.client(on: servers[0]), eventLoopGroup: eventLoopGroup, backgroundLogger: logger)
            current = Mutex(Current(client: client, server: servers[0]))
        } else {
            current = Mutex(Current())
        }
    }

    /// A database that is exactly this pool (tests, tools).
    public init(client: PostgresClient, logger: Logger) {
        servers = []
        target = .any
        login = nil
        eventLoopGroup = PostgresClient.defaultEventLoopGroup
        self.logger = logger
        current = Mutex(Current(client: client, server: nil))
    }

    /// The server the pool is on now; `nil` until one has been chosen.
    public var server: Server? { current.withLock { $0.server } }

    private var followsPrimary: Bool { servers.count > 1 }

    // MARK: Calls, as PostgresClient's

    @discardableResult
    public func query(
        _ query: PostgresQuery, logger: Logger? = nil, file: String = #fileID, line: Int = #line
    ) async throws -> PostgresRowSequence {
        let client = try await client()
        do {
            return try await client.query(query, logger: logger, file: file, line: line)
        } catch {
            noteFailure(error)
            throw error
        }
    }

    /// Executes a prepared statement, preparing it when necessary.
    public func execute<Statement: PostgresPreparedStatement, Row>(
        _ statement: Statement, logger: Logger? = nil, file: String = #fileID, line: Int = #line
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Row> where Row == Statement.Row {
        let client = try await client()
        do {
            return try await client.execute(statement, logger: logger, file: file, line: line)
        } catch {
            noteFailure(error)
            throw error
        }
    }

    public func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ closure: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let client = try await client()
        do {
            return try await client.withConnection(isolation: isolation, closure)
        } catch {
            noteFailure(error)
            throw error
        }
    }

    /// `closure` in a transaction on a connection of the pool; its failures are ``TransactionError``s.
    public func withTransaction<Result>(
        logger: Logger,
        isolation: isolated (any Actor)? = #isolation,
        _ closure: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await withConnection(isolation: isolation) { connection in
            try await connection.transaction(logger: logger, isolation: isolation, closure)
        }
    }

    /// The current pool; before the first choice among several servers, waits for it (start-up only).
    private func client() async throws -> PostgresClient {
        while true {
            if let client = current.withLock({ $0.client }) { return client }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func noteFailure(_ error: any Error) {
        guard followsPrimary, Self.isUnreachable(error) else { return }
        failureReported.store(true, ordering: .relaxed)
    }

    // MARK: Running

    /// Runs the pool, and with several servers chooses among them and follows a failover, until the
    /// task is cancelled or the service shuts down gracefully.
    public func run() async {
        guard followsPrimary else {
            if let client = current.withLock({ $0.client }) { await client.run() }
            return
        }
        await cancelWhenGracefulShutdown { await self.follow() }
    }

    private func follow() async {
        var running: Task<Void, Never>?
        var searching = false
        while !Task.isCancelled {
            failureReported.store(false, ordering: .relaxed)
            guard let chosen = await choose() else {
                // Said once per outage, not every second of it.
                if !searching {
                    logger.warning(
                        "no database server qualifies; trying every second",
                        metadata: [
                            "servers": "\(servers.map(\.description).joined(separator: ","))", "target_session_attrs": "\(target.rawValue)",
                        ])
                }
                searching = true
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            searching = false
            if chosen != server, let login {
                let client = PostgresClient(
                    configuration: login.client(on: chosen), eventLoopGroup: eventLoopGroup, backgroundLogger: logger)
                let task = Task { await client.run() }
                let previous = current.withLock { current -> Server? in
                    defer { current = Current(client: client, server: chosen) }
                    return current.server
                }
                // The old pool's connections are to a server that is gone or no longer takes
                // writes: closing it ends them, and calls still holding one fail as unreachable.
                running?.cancel()
                running = task
                if let previous {
                    logger.warning(
                        "database server changed",
                        metadata: ["from": "\(previous)", "to": "\(chosen)", "target_session_attrs": "\(target.rawValue)"])
                } else {
                    logger.info("database server chosen", metadata: ["server": "\(chosen)", "target_session_attrs": "\(target.rawValue)"])
                }
            }
            await watch(chosen)
        }
        running?.cancel()
        await running?.value
    }

    /// Returns when `server` should be chosen again: it failed its check, made every second on a
    /// connection of its own, or a call failed as a failover makes calls fail.
    ///
    /// The check is needed besides the calls: while the server is down, PostgresNIO's pool keeps
    /// retrying its connection and the calls wait for it rather than fail, until their callers give up.
    private func watch(_ server: Server) async {
        guard let connection = try? await connect(to: server) else { return }
        var elapsed = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            elapsed += 1
            // Reports count from the first check on, so that a burst of them (say, "too many
            // connections" under load) makes at most one attempt a second.
            if elapsed > 10, failureReported.load(ordering: .relaxed) { break }
            if elapsed % 10 == 0, !(await check(on: connection)) { break }
        }
        try? await connection.close()
    }

    /// The server to use: the current one while it qualifies, else the first in order that does.
    private func choose() async -> Server? {
        var candidates = servers
        if let server, let index = candidates.firstIndex(of: server) {
            candidates.remove(at: index)
            candidates.insert(server, at: 0)
        }
        for server in candidates {
            guard let connection = try? await connect(to: server) else { continue }
            let qualifies = await check(on: connection)
            try? await connection.close()
            if qualifies { return server }
        }
        return nil
    }

    private func connect(to server: Server) async throws -> PostgresConnection {
        // Only a database made from its servers follows them; one made from a pool has no login.
        guard let login else { throw CancellationError() }
        return try await PostgresConnection.connect(
            on: eventLoopGroup.next(), configuration: login.connection(to: server), id: 0, logger: logger)
    }

    /// Whether the server on the other end answers within two seconds and, for `read-write` and
    /// `primary`, takes writes. A server that does not answer in time has its connection closed.
    private func check(on connection: PostgresConnection) async -> Bool {
        // PostgresNIO 1.33 never answers a query written to a connection that has already closed:
        // ask only an open one, and never wait for the answer longer than the timeout.
        if connection.isClosed { return false }
        let query: PostgresQuery =
            switch target {
            case .any: "SELECT true"
            case .readWrite: "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'"
            case .primary: "SELECT NOT pg_is_in_recovery()"
            }
        let logger = self.logger
        let verdict = await Self.answer(within: .seconds(2)) {
            do {
                for try await qualifies in try await connection.query(query, logger: logger).decode(Bool.self) {
                    return qualifies
                }
            } catch {}
            return false
        }
        guard let verdict else {
            try? await connection.close()
            return false
        }
        return verdict
    }

    /// `operation`'s result, or `nil` when it has none within `timeout`. An operation still running
    /// then is cancelled and left to finish on its own: unlike a task group, this never waits for it.
    static func answer<T: Sendable>(within timeout: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
        let waiting = Waiting<T>()
        return await withCheckedContinuation { continuation in
            waiting.continuation.withLock { $0 = continuation }
            let work = Task {
                let result = await operation()
                waiting.resume(returning: result)
            }
            Task {
                try? await Task.sleep(for: timeout)
                work.cancel()
                waiting.resume(returning: nil)
            }
        }
    }

    /// A continuation resumed by whichever comes first.
    private final class Waiting<T: Sendable>: Sendable {
        let continuation = Mutex<CheckedContinuation<T?, Never>?>(nil)

        func resume(returning value: T?) {
            continuation.withLock { $0.take() }?.resume(returning: value)
        }
    }

    // MARK: Errors

    /// PostgreSQL could not be reached, or does not take writes now (connection refused or lost, the
    /// pool gave up, a server shutting down, a standby): not a fault of the request, and what a
    /// failover looks like from a call. PostgresNIO reports the pool's own failures with a type of
    /// its internal connection-pool module, recognised here by name.
    public static func isUnreachable(_ error: any Error) -> Bool {
        // A transaction wraps what failed in it: the connection lost at BEGIN, inside, or at COMMIT.
        if let transaction = error as? TransactionError {
            return [transaction.beginError, transaction.closureError, transaction.commitError].contains { $0.map(isUnreachable) ?? false }
        }
        if error is ConnectionClosed { return true }
        if let error = error as? PSQLError {
            if [.connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed].contains(error.code) {
                return true
            }
            // A connection exception (08…), a connection ended by a shutdown (57P01–57P03, also
            // when an operator ends it), too many connections (53…), or a write sent to a server
            // that is read-only (25006: a standby, or a primary being demoted).
            guard let state = error.serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("08") || state.hasPrefix("57P0") || state.hasPrefix("53") || state == "25006"
        }
        return String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError")
    }
}

extension Database: Service {}
