import AuthVocabulary
import Foundation
import TenantStore

/// The statements of `AccountRepository+InTransaction.swift`, each a type: the account statements
/// other rooms run inside their own transaction. The updates that answer whether the account
/// matched return its id (`SingleValue<String>`): no row, no change.
extension AccountRepository {
    /// The account's row, locked until the transaction ends; no row: no such account.
    struct LockAccount: Statement {
        typealias Row = SingleValue<String>
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT local_id FROM \(sql: schema.qualified(AccountRepository.table)) WHERE local_id = \(localId) FOR UPDATE"
        }
    }

    /// The account's row locked, and whether it is disabled; no row: no such account.
    struct LockDisabled: Statement {
        typealias Row = SingleValue<Bool>
        static var isCached: Bool { false }
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT disabled FROM \(sql: schema.qualified(AccountRepository.table)) WHERE local_id = \(localId) FOR UPDATE"
        }
    }

    /// Every session of the account ended (``AccountRepository/sessionsEnd``).
    struct EndSessions: Statement {
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "UPDATE \(sql: schema.qualified(AccountRepository.table)) SET valid_since = \(sql: AccountRepository.sessionsEnd) WHERE local_id = \(localId)"
        }
    }

    /// The address `email` (normalised) verified, while the account still has it.
    struct VerifyEmail: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let localId: String
        let normalizedEmail: String?

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET email_verified = true
            WHERE local_id = \(localId) AND email_normalized = \(normalizedEmail) RETURNING local_id
            """
        }
    }

    /// A reset password, the address verified, every session ended; while the account still has
    /// the address `normalizedEmail`.
    struct ResetPassword: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let localId: String
        let normalizedEmail: String?
        let passwordHash: String?

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET password_hash = \(passwordHash), email_verified = true,
                valid_since = \(sql: AccountRepository.sessionsEnd)
            WHERE local_id = \(localId) AND email_normalized = \(normalizedEmail) RETURNING local_id
            """
        }
    }

    /// The address `target` in place of `previous` (normalised, or none), verified, every session
    /// ended; a unique violation (`accounts_email_normalized_key`) when another account has it.
    struct ChangeEmail: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let localId: String
        let previous: String?
        let target: String

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET email = \(target), email_normalized = \(EmailAddress.normalized(target)),
                email_verified = true, valid_since = \(sql: AccountRepository.sessionsEnd)
            WHERE local_id = \(localId) AND email_normalized IS NOT DISTINCT FROM \(previous) RETURNING local_id
            """
        }
    }

    /// The phone number gone, every session ended; while the account still has it.
    struct RemovePhoneNumber: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let localId: String
        let phoneNumber: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET phone_number = NULL, valid_since = \(sql: AccountRepository.sessionsEnd)
            WHERE local_id = \(localId) AND phone_number = \(phoneNumber) RETURNING local_id
            """
        }
    }

    /// The address given to the account, verified, and the sign-in recorded; its time in seconds.
    struct LinkEmail: Statement {
        typealias Row = SingleValue<Int64>
        static var isCached: Bool { false }
        let email: String
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET email = \(email), email_normalized = \(EmailAddress.normalized(email)),
                email_verified = true, last_login_at = now()
            WHERE local_id = \(localId) RETURNING floor(extract(epoch FROM last_login_at))::bigint
            """
        }
    }

    /// The account whose address is `normalizedEmail`, with the kinds of its factors.
    struct ReadAddressHolder: Statement {
        typealias Row = AddressHolder
        static var isCached: Bool { false }
        let normalizedEmail: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT a.local_id, a.disabled, coalesce(array_agg(e.kind) FILTER (WHERE e.kind IS NOT NULL), '{}') AS kinds
            FROM \(sql: schema.qualified(AccountRepository.table)) a LEFT JOIN \(sql: schema.qualified(EnrollmentRepository.table)) e
              ON e.local_id = a.local_id
            WHERE a.email_normalized = \(normalizedEmail) GROUP BY a.local_id, a.disabled
            """
        }
    }

    /// An email link's sign-in: the address verified, the sign-in recorded unless a second factor
    /// must follow; the last sign-in in seconds (0: none).
    struct SignInByEmailLink: Statement {
        typealias Row = SingleValue<Int64>
        static var isCached: Bool { false }
        let localId: String
        let required: Bool

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET email_verified = true,
                last_login_at = CASE WHEN \(required) THEN last_login_at ELSE now() END
            WHERE local_id = \(localId) RETURNING coalesce(floor(extract(epoch FROM last_login_at))::bigint, 0)
            """
        }
    }

    /// An account made by its email link's sign-in, the address verified, held when `held`; its
    /// sign-in time in seconds.
    struct InsertSignedInByEmailLink: Statement {
        typealias Row = SingleValue<Int64>
        static var isCached: Bool { false }
        let localId: String
        let email: String
        let held: Bool

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(AccountRepository.table))
                (local_id, email, email_normalized, email_verified, disabled, last_login_at, held_since)
            VALUES (\(localId), \(email), \(EmailAddress.normalized(email)), true, \(held), now(), CASE WHEN \(held) THEN now() END)
            RETURNING floor(extract(epoch FROM last_login_at))::bigint
            """
        }
    }

    /// The provider's address given to an account without one.
    struct AdoptEmail: Statement {
        static var isCached: Bool { false }
        let localId: String
        let email: String?
        let verified: Bool

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET email = \(email), email_normalized = \(email.map(EmailAddress.normalized)),
                email_verified = \(verified)
            WHERE local_id = \(localId) AND email IS NULL
            """
        }
    }
}
