import Logging
import PostgresNIO
import Synchronization

/// The statements this process lets PostgreSQL keep prepared, each under a name of ours.
///
/// Parsing, analysing and planning are about 40 % of PostgreSQL's work in the hottest flows, and
/// an unnamed statement pays for them on every call. A named one pays once per connection. Our SQL
/// names the tenant's schema in its text, so there is one statement per schema: the number of
/// names is bounded (`capacity`), because each costs memory in every PostgreSQL backend that
/// prepares it and PostgresNIO never deallocates one. Once the names are spent, further statements
/// run unprepared, exactly as before; nothing fails.
///
/// A text gets a name only after it has run once unprepared without error. Schemas often come from
/// a client's token (a pending credential, a refresh token), so a text naming a schema that does
/// not exist never spends a name however often it is sent. A statement whose plan became invalid
/// later (its schema dropped, a migration changed a table under it) is retired and must prove
/// itself again: PostgresNIO remembers a failed preparation on a connection for good, so the text
/// must not be prepared under that name again.
public final class StatementCache: Sendable {
    /// The process's cache (`postgres.preparedStatements` sets its capacity at start-up).
    public static let shared = StatementCache(capacity: 500)

    private let state: Mutex<State>

    private struct State {
        var capacity: Int
        var names: [String: String] = [:]
        var issued = 0
    }

    public init(capacity: Int) {
        state = Mutex(State(capacity: capacity))
    }

    /// How many names this process gives out in all; each PostgreSQL connection therefore holds at
    /// most this many prepared statements. Lowering it stops further names; 0 turns caching off.
    public var capacity: Int {
        get { state.withLock { $0.capacity } }
        set { state.withLock { $0.capacity = max(0, newValue) } }
    }

    /// The name of `sql`, once it has earned one.
    func name(for sql: String) -> String? {
        state.withLock { $0.names[sql] }
    }

    /// Gives `sql` a name after it ran unprepared without error, while names remain.
    func admit(_ sql: String) {
        state.withLock { state in
            guard state.names[sql] == nil, state.issued < state.capacity else { return }
            state.issued += 1
            state.names[sql] = "mfa_\(state.issued)"
        }
    }

    /// Forgets `sql`'s name; its next use prepares it afresh under a new one.
    func retire(_ sql: String) {
        state.withLock { _ = $0.names.removeValue(forKey: sql) }
    }

    /// How many names have been given out, retired ones included.
    public var namesIssued: Int {
        state.withLock { $0.issued }
    }

    /// Errors after which a prepared statement must not be used again: undefined table, schema or
    /// column; a plan whose result type changed; a statement the server does not know.
    static func invalidates(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return ["42P01", "3F000", "42703", "0A000", "26000"].contains(state)
    }
}

/// The rows of a cached query; `decode(_:)` works on them as on a `PostgresRowSequence`.
public typealias CachedRows = AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow>

/// PostgresNIO takes a prepared statement's name and text from static members of its type; ours are
/// made at run time, so the type reads them from a task-local value set around the call. PostgresNIO
/// reads both in the calling task, before the request is handed to the connection.
struct RuntimeStatement: PostgresPreparedStatement {
    typealias Row = PostgresRow

    struct Identity: Sendable {
        var name: String
        var sql: String
    }

    @TaskLocal static var current = Identity(name: "", sql: "")

    static var name: String { current.name }
    static var sql: String { current.sql }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

extension Database {
    /// Runs `statement` as a prepared statement on whichever pooled connection is free.
    @discardableResult
    public func query(
        cached statement: CachedQuery, logger: Logger, cache: StatementCache = .shared,
        file: String = #fileID, line: Int = #line
    ) async throws -> CachedRows {
        try await statement.run(
            in: cache,
            unprepared: { try await query($0, logger: logger, file: file, line: line) },
            prepared: { try await execute($0, logger: logger, file: file, line: line) }
        )
    }
}

extension PostgresConnection {
    /// Runs `statement` as a prepared statement on this connection (inside a transaction, say).
    @discardableResult
    public func query(
        cached statement: CachedQuery, logger: Logger, cache: StatementCache = .shared,
        file: String = #fileID, line: Int = #line
    ) async throws -> CachedRows {
        try await statement.run(
            in: cache,
            unprepared: { try await query($0, logger: logger, file: file, line: line) },
            prepared: { try await execute($0, logger: logger, file: file, line: line) }
        )
    }
}

extension CachedQuery {
    /// Prepared under the cache's name for the text when it has one; unprepared otherwise, and
    /// then admitted to the cache if it ran.
    fileprivate func run(
        in cache: StatementCache,
        unprepared: (PostgresQuery) async throws -> PostgresRowSequence,
        prepared: (RuntimeStatement) async throws -> CachedRows
    ) async throws -> CachedRows {
        guard isCacheable else { return try await unprepared(query).map { row throws in row } }
        guard let name = cache.name(for: query.sql) else {
            let rows = try await unprepared(query)
            cache.admit(query.sql)
            return rows.map { row throws in row }
        }
        do {
            return try await RuntimeStatement.$current.withValue(.init(name: name, sql: query.sql)) {
                try await prepared(RuntimeStatement(bindings: query.binds))
            }
        } catch let error as PSQLError where StatementCache.invalidates(error) {
            cache.retire(query.sql)
            throw error
        }
    }
}
