import PostgresNIO

/// SQLSTATE 23505: a row with the same key was committed first. Statements that claim something
/// once (a finished sign-in, a token) let PostgreSQL's unique index decide a race, then read what
/// the winner wrote.
public enum UniqueViolation {
    public static func matches(_ error: any Error) -> Bool {
        if let transaction = error as? TransactionError, let cause = transaction.closureError ?? transaction.commitError {
            return matches(cause)
        }
        return (error as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }
}
