import AuthVocabulary
import Foundation
import Logging
import PostgresNIO
import TenantStore

/// The account statements other rooms run on their own connection, inside a transaction of theirs:
/// an enrollment or a passkey locks the account first, an out-of-band code or a provider's proof
/// changes it in the commit that uses the code or records the link. Each returns whether the account
/// matched (its row, its address, its number), so the caller knows what changed.
extension AccountRepository {
    /// Locks the account's row until the transaction ends; `false` when there is no such account.
    static func lock(_ localId: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger) async throws
        -> Bool
    {
        let rows = try await connection.query(
            cached: "SELECT local_id FROM \(sql: schema.qualified(table)) WHERE local_id = \(localId) FOR UPDATE", logger: logger
        )
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    /// Locks the account's row and says whether it is disabled; `nil` when there is no such account.
    static func lockDisabled(_ localId: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger)
        async throws -> Bool?
    {
        let rows = try await connection.query(
            "SELECT disabled FROM \(sql: schema.qualified(table)) WHERE local_id = \(localId) FOR UPDATE", logger: logger
        )
        for try await disabled in rows.decode(Bool.self) { return disabled }
        return nil
    }

    /// Ends every session of the account (``sessionsEnd``).
    static func endSessions(of localId: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        try await connection.query(
            cached: "UPDATE \(sql: schema.qualified(table)) SET valid_since = \(sql: sessionsEnd) WHERE local_id = \(localId)",
            logger: logger
        )
    }

    /// The address `email` (normalised) is proved: verified, while the account still has it.
    static func verifyEmail(
        of localId: String, normalized email: String?, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        try await changed(
            """
            UPDATE \(sql: schema.qualified(table)) SET email_verified = true
            WHERE local_id = \(localId) AND email_normalized = \(email) RETURNING local_id
            """,
            on: connection, logger: logger
        )
    }

    /// A password reset through a mail to `email` (normalised): the new password, the address
    /// verified, every session ended; while the account still has that address.
    static func resetPassword(
        of localId: String, normalized email: String?, to passwordHash: String?, in schema: TenantSchema,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        try await changed(
            """
            UPDATE \(sql: schema.qualified(table)) SET password_hash = \(passwordHash), email_verified = true,
                valid_since = \(sql: sessionsEnd)
            WHERE local_id = \(localId) AND email_normalized = \(email) RETURNING local_id
            """,
            on: connection, logger: logger
        )
    }

    /// An email change confirmed at the new address: it replaces `previous` (normalised, or no
    /// address), verified, and every session ends. The unique index refuses an address another
    /// account took meanwhile (`accounts_email_normalized_key`).
    static func changeEmail(
        of localId: String, from previous: String?, to target: String, in schema: TenantSchema, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Bool {
        try await changed(
            """
            UPDATE \(sql: schema.qualified(table)) SET email = \(target), email_normalized = \(EmailAddress.normalized(target)),
                email_verified = true, valid_since = \(sql: sessionsEnd)
            WHERE local_id = \(localId) AND email_normalized IS NOT DISTINCT FROM \(previous) RETURNING local_id
            """,
            on: connection, logger: logger
        )
    }

    /// The owner says someone else linked `phoneNumber`: it goes, while the account still has it,
    /// and every session ends.
    static func removePhoneNumber(
        of localId: String, _ phoneNumber: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        try await changed(
            """
            UPDATE \(sql: schema.qualified(table)) SET phone_number = NULL, valid_since = \(sql: sessionsEnd)
            WHERE local_id = \(localId) AND phone_number = \(phoneNumber) RETURNING local_id
            """,
            on: connection, logger: logger
        )
    }

    /// An email link used by a signed-in user: the address becomes theirs, verified, and the sign-in
    /// is recorded; its time in seconds, `nil` when there is no such account.
    static func linkEmail(
        _ email: String, to localId: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> EpochSeconds? {
        let rows = try await connection.query(
            """
            UPDATE \(sql: schema.qualified(table)) SET email = \(email), email_normalized = \(EmailAddress.normalized(email)),
                email_verified = true, last_login_at = now()
            WHERE local_id = \(localId) RETURNING floor(extract(epoch FROM last_login_at))::bigint
            """,
            logger: logger
        )
        for try await seconds in rows.decode(Int64.self) { return EpochSeconds(seconds) }
        return nil
    }

    /// The account whose address is `email` (normalised), with the kinds of its factors.
    static func holder(
        ofNormalized email: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> AddressHolder? {
        let rows = try await connection.query(
            """
            SELECT a.local_id, a.disabled, coalesce(array_agg(e.kind) FILTER (WHERE e.kind IS NOT NULL), '{}') AS kinds
            FROM \(sql: schema.qualified(table)) a LEFT JOIN \(sql: schema.qualified(EnrollmentRepository.table)) e
              ON e.local_id = a.local_id
            WHERE a.email_normalized = \(email) GROUP BY a.local_id, a.disabled
            """,
            logger: logger
        )
        for try await holder in rows.decode(rows: AddressHolder.self) { return holder }
        return nil
    }

    /// An email link's sign-in of an existing account: the address verified, and the sign-in
    /// recorded unless a second factor must follow (`required`); the last sign-in in seconds.
    static func signInByEmailLink(
        _ localId: String, required: Bool, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> EpochSeconds? {
        let rows = try await connection.query(
            """
            UPDATE \(sql: schema.qualified(table)) SET email_verified = true,
                last_login_at = CASE WHEN \(required) THEN last_login_at ELSE now() END
            WHERE local_id = \(localId) RETURNING coalesce(floor(extract(epoch FROM last_login_at))::bigint, 0)
            """,
            logger: logger
        )
        for try await seconds in rows.decode(Int64.self) { return EpochSeconds(seconds) }
        return nil
    }

    /// An account made by its email link's sign-in, the address verified; `held`: disabled until
    /// its `beforeCreate` function allows it (``expiredHolds(_:)``). Its sign-in time in seconds.
    static func insertSignedInByEmailLink(
        _ localId: String, email: String, held: Bool, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> EpochSeconds {
        let rows = try await connection.query(
            """
            INSERT INTO \(sql: schema.qualified(table))
                (local_id, email, email_normalized, email_verified, disabled, last_login_at, held_since)
            VALUES (\(localId), \(email), \(EmailAddress.normalized(email)), true, \(held), now(), CASE WHEN \(held) THEN now() END)
            RETURNING floor(extract(epoch FROM last_login_at))::bigint
            """,
            logger: logger
        )
        for try await seconds in rows.decode(Int64.self) { return EpochSeconds(seconds) }
        throw AccountStoreInconsistent()
    }

    /// A provider user linked to an account without an address gives it the provider's.
    static func adoptEmail(
        of localId: String, email: String?, verified: Bool, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            UPDATE \(sql: schema.qualified(table)) SET email = \(email), email_normalized = \(email.map(EmailAddress.normalized)),
                email_verified = \(verified)
            WHERE local_id = \(localId) AND email IS NULL
            """,
            logger: logger
        )
    }

    /// Runs an update that returns the rows it changed; whether it changed one.
    private static func changed(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query(query, logger: logger)
        var changed = false
        for try await _ in rows.decode(String.self) { changed = true }
        return changed
    }
}

/// The account an email link's address belongs to, with the kinds of its factors.
struct AddressHolder: StatementRow {
    let localId: String
    let disabled: Bool
    let kinds: [String]

    init(_ columns: RowColumns) throws {
        localId = try columns("local_id")
        disabled = try columns("disabled")
        kinds = try columns("kinds")
    }
}
