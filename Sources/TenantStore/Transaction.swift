import Logging
import PostgresNIO

/// A transaction that failed (``Database/withTransaction(logger:isolation:_:)``): at
/// `BEGIN`, in its body (then rolled back, unless the rollback failed too), or at `COMMIT`.
public struct TransactionError: Error, CustomStringConvertible {
    public var beginError: (any Error)?
    public var closureError: (any Error)?
    /// Set when the rollback after a failed body failed; `nil` when it rolled back, or when the
    /// server had already ended the connection (which rolls back whatever it had not committed).
    public var rollbackError: (any Error)?
    public var commitError: (any Error)?

    public var description: String {
        if let beginError { return "transaction failed to begin: \(beginError)" }
        if let commitError { return "transaction failed to commit: \(commitError)" }
        let rollback = rollbackError.map { "; its rollback failed too: \($0)" } ?? ""
        return "transaction failed: \(closureError.map { "\($0)" } ?? "unknown error")\(rollback)"
    }
}

/// The connection was closed before a statement could be written to it.
public struct ConnectionClosed: Error, CustomStringConvertible {
    public var description: String { "the PostgreSQL connection was closed" }
}

extension PostgresConnection {
    /// `BEGIN`, `body`, then `COMMIT`, or `ROLLBACK` if `body` throws.
    ///
    /// Unlike PostgresNIO's own `withTransaction`, it writes no statement to a connection that is
    /// already closed: PostgresNIO never answers one (its query promise is dropped with the write),
    /// so a transaction whose connection the server ended (a failover, a restart,
    /// `pg_terminate_backend`) waited forever for its `ROLLBACK`. A closed connection needs none:
    /// the server discards what was not committed.
    func transaction<Result>(
        logger: Logger,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        do {
            try await statement("BEGIN;", logger: logger)
        } catch {
            throw TransactionError(beginError: error)
        }
        let value: Result
        do {
            value = try await body(self)
        } catch {
            var failure = TransactionError(closureError: error)
            if !isClosed {
                do {
                    try await statement("ROLLBACK;", logger: logger)
                } catch {
                    failure.rollbackError = error
                }
            }
            throw failure
        }
        do {
            try await statement("COMMIT;", logger: logger)
        } catch {
            throw TransactionError(commitError: error)
        }
        return value
    }

    private func statement(_ query: PostgresQuery, logger: Logger) async throws {
        guard !isClosed else { throw ConnectionClosed() }
        try await self.query(query, logger: logger)
    }
}
