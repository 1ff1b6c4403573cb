import Foundation
import PostgresNIO
import TenantStore

/// The statements of ``RecoveryCodeRepository``, each a type: its values, its text in a schema, its
/// row. They run unprepared, as they always have: a set is made and used rarely.
extension RecoveryCodeRepository {
    // MARK: Making a set

    /// The owner of the enrollment's set, the set locked until the transaction ends; no row: no set.
    struct LockSetOwner: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let enrollmentId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT local_id FROM \(sql: schema.qualified(RecoveryCodeRepository.sets)) WHERE enrollment_id = \(enrollmentId) FOR UPDATE"
        }
    }

    /// The enrollment's set, its codes going with it (`ON DELETE CASCADE`).
    struct DeleteSet: Statement {
        static var isCached: Bool { false }
        let enrollmentId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(RecoveryCodeRepository.sets)) WHERE enrollment_id = \(enrollmentId)"
        }
    }

    /// A new, empty set of `localId`'s.
    struct InsertSet: Statement {
        static var isCached: Bool { false }
        let enrollmentId: String
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "INSERT INTO \(sql: schema.qualified(RecoveryCodeRepository.sets)) (enrollment_id, local_id) VALUES (\(enrollmentId), \(localId))"
        }
    }

    /// The set's codes, as their keyed hashes in hex: PostgresNIO binds no array of bytea, so the
    /// statement decodes them.
    struct InsertCodes: Statement {
        static var isCached: Bool { false }
        let enrollmentId: String
        let localId: String
        let hexHashes: [String]

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(RecoveryCodeRepository.codes)) (enrollment_id, local_id, code_hash)
            SELECT \(enrollmentId), \(localId), decode(hash, 'hex') FROM unnest(\(hexHashes)::text[]) AS hash
            """
        }
    }

    // MARK: Redeeming a code

    /// The set's guessing state and what the sign-in `attempt` finished with, the set locked until
    /// the transaction ends; no row: no such set of this user.
    struct LockSetState: Statement {
        typealias Row = SetState
        static var isCached: Bool { false }
        let enrollmentId: String
        let localId: String
        let attempt: String
        let limits: Limits

        func query(in schema: TenantSchema) -> CachedQuery {
            let (window, maximumFailures, capacity, refill) = (limits.window, limits.maximumFailures, limits.capacity, limits.refill)
            return """
                SELECT (failure_window_start > now() - make_interval(secs => \(window)) AND failures >= \(maximumFailures))
                       OR least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) < 1
                       AS throttled,
                       (SELECT proof FROM \(sql: schema.qualified(FinishedSignIns.table))
                        WHERE attempt = \(attempt) AND expires_at > now()) AS finished_proof
                FROM \(sql: schema.qualified(RecoveryCodeRepository.sets)) WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId) FOR UPDATE
                """
        }
    }

    /// A set's guessing state and the proof of a sign-in it already finished.
    struct SetState: StatementRow {
        let throttled: Bool
        let finishedProof: String?

        init(_ columns: RowColumns) throws {
            throttled = try columns("throttled")
            finishedProof = try columns("finished_proof")
        }
    }

    /// The unused code whose keyed hash is `hash`, used up; no row: no such unused code.
    struct UseCode: Statement {
        typealias Row = SingleValue<Int32>
        static var isCached: Bool { false }
        let enrollmentId: String
        let localId: String
        let hash: Data

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            UPDATE \(sql: schema.qualified(RecoveryCodeRepository.codes)) SET used_at = now()
            WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId) AND code_hash = \(hash) AND used_at IS NULL
            RETURNING 1
            """
        }
    }

    /// A good code: the set's wrong-code window cleared.
    struct ClearFailures: Statement {
        static var isCached: Bool { false }
        let enrollmentId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(RecoveryCodeRepository.sets)) SET failures = 0, failure_window_start = NULL
            WHERE enrollment_id = \(enrollmentId)
            """
        }
    }

    /// A wrong code: one more failure in the window, and one spent from the daily budget.
    struct CountFailure: Statement {
        static var isCached: Bool { false }
        let enrollmentId: String
        let limits: Limits

        func query(in schema: TenantSchema) -> CachedQuery {
            let (window, capacity, refill) = (limits.window, limits.capacity, limits.refill)
            return """
                UPDATE \(sql: schema.qualified(RecoveryCodeRepository.sets)) SET
                    failures = CASE WHEN failure_window_start > now() - make_interval(secs => \(window)) THEN failures + 1 ELSE 1 END,
                    failure_window_start = CASE WHEN failure_window_start > now() - make_interval(secs => \(window))
                                                THEN failure_window_start ELSE now() END,
                    budget = least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) - 1,
                    budget_updated_at = now()
                WHERE enrollment_id = \(enrollmentId)
                """
        }
    }

    /// How many of the set's codes are unused.
    struct CountUnused: Statement {
        typealias Row = SingleValue<Int64>
        static var isCached: Bool { false }
        let enrollmentId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT count(*) FROM \(sql: schema.qualified(RecoveryCodeRepository.codes)) WHERE enrollment_id = \(enrollmentId) AND used_at IS NULL"
        }
    }

    // MARK: Reading and withdrawing

    /// The set's unused codes and when it was made; no row: no such set of this user.
    struct ReadUnused: Statement {
        typealias Row = UnusedCodes
        static var isCached: Bool { false }
        let enrollmentId: String
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT (SELECT count(*) FROM \(sql: schema.qualified(RecoveryCodeRepository.codes)) c
                    WHERE c.enrollment_id = s.enrollment_id AND c.used_at IS NULL) AS remaining,
                   s.generated_at
            FROM \(sql: schema.qualified(RecoveryCodeRepository.sets)) s
            WHERE s.enrollment_id = \(enrollmentId) AND s.local_id = \(localId)
            """
        }
    }

    /// A set's unused codes and when it was made.
    struct UnusedCodes: StatementRow {
        let remaining: Int64
        let generatedAt: Date

        init(_ columns: RowColumns) throws {
            remaining = try columns("remaining")
            generatedAt = try columns("generated_at")
        }
    }

    /// The set of a withdrawn enrollment of `localId`'s.
    struct DeleteUserSet: Statement {
        static var isCached: Bool { false }
        let enrollmentId: String
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            DELETE FROM \(sql: schema.qualified(RecoveryCodeRepository.sets)) WHERE enrollment_id = \(enrollmentId) AND local_id = \(localId)
            """
        }
    }
}
