import AuthVocabulary
import Contracts
import Foundation
import PostgresNIO
import TenantStore

/// The statements of `AccountRepository.swift`, each a type: its values, its text in a schema, its
/// row (most read an account as ``AccountRepository/Row``).
extension AccountRepository {
    // MARK: Creating

    /// A new account, signed in now when `signedIn`, held when `held`; its row is the times it was
    /// stamped with. Unique violations name the email, the id or the number taken.
    struct InsertAccount: Statement {
        typealias Row = Inserted
        let localId: String
        let email: String?
        let passwordHash: String?
        let displayName: String?
        let emailVerified: Bool
        let disabled: Bool
        let held: Bool
        let phoneNumber: String?
        let photoUrl: String?
        let signedIn: Bool

        func query(in schema: TenantSchema) throws -> CachedQuery {
            let normalized = email.map(EmailAddress.normalized)
            // Only `qualified(_:)` output is spliced into the text; every value is a bind parameter.
            return try """
            INSERT INTO \(sql: schema.qualified(AccountRepository.table))
            (local_id, email, email_normalized, password_hash, display_name, email_verified, disabled, phone_number,
             photo_url, last_login_at, held_since)
            VALUES (\(localId), \(email), \(normalized), \(passwordHash), \(displayName), \(emailVerified), \(disabled),
                    \(phoneNumber), \(photoUrl), CASE WHEN \(signedIn) THEN now() END, CASE WHEN \(held) THEN now() END)
            RETURNING (extract(epoch FROM created_at) * 1000)::bigint AS created_at_ms,
                      (extract(epoch FROM last_login_at) * 1000)::bigint AS last_login_at_ms
            """
        }
    }

    /// The times an insert stamps on a new account.
    struct Inserted: StatementRow {
        let createdAtMillis: Int64
        let lastLoginAtMillis: Int64?

        init(_ columns: RowColumns) throws {
            createdAtMillis = try columns("created_at_ms")
            lastLoginAtMillis = try columns("last_login_at_ms")
        }
    }

    /// An imported account, or the one with its id replaced when `overwrite` (every session ended);
    /// no row when the id exists and overwriting was not asked for.
    struct ImportAccount: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let record: ImportRecord
        let overwrite: Bool

        func query(in schema: TenantSchema) throws -> CachedQuery {
            let normalized = record.email.map(EmailAddress.normalized)
            // Without one, the database's clock, which sign-in times also use (SignedInUser compares them).
            let createdAt = record.createdAtMillis.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            let lastLoginAt = record.lastLoginAtMillis.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            return try """
            INSERT INTO \(sql: schema.qualified(AccountRepository.table))
            (local_id, email, email_normalized, email_verified, display_name, password_hash, disabled, phone_number,
             custom_attributes, created_at, last_login_at, photo_url)
            VALUES (\(record.localId), \(record.email), \(normalized), \(record.emailVerified), \(record.displayName),
                    \(record.passwordHash), \(record.disabled), \(record.phoneNumber), \(record.customAttributes),
                    coalesce(\(createdAt)::timestamptz, now()), \(lastLoginAt), \(record.photoUrl))
            ON CONFLICT (local_id) DO UPDATE SET
                email = excluded.email, email_normalized = excluded.email_normalized,
                email_verified = excluded.email_verified, display_name = excluded.display_name,
                photo_url = excluded.photo_url,
                password_hash = excluded.password_hash, disabled = excluded.disabled,
                phone_number = excluded.phone_number, custom_attributes = excluded.custom_attributes,
                created_at = excluded.created_at, last_login_at = excluded.last_login_at,
                valid_since = \(sql: AccountRepository.sessionsEnd)
            WHERE \(overwrite)
            RETURNING local_id
            """
        }
    }

    // MARK: Reading

    /// One account by a unique column (`column` is a literal of ours, never input).
    struct ReadAccountBy: Statement {
        typealias Row = AccountRepository.Row
        let column: SQLText
        let value: String

        func query(in schema: TenantSchema) -> CachedQuery {
            let accounts = schema.qualified(AccountRepository.table)
            return "SELECT \(sql: AccountRepository.columns(schema)) FROM \(sql: accounts) WHERE \(sql: column) = \(value)"
        }
    }

    /// Accounts whose id, normalised email or number is in the lists, each once, ordered by id.
    struct ReadAccountsIn: Statement {
        typealias Row = AccountRepository.Row
        static var isCached: Bool { false }
        let localIds: [String]
        let normalizedEmails: [String]
        let phoneNumbers: [String]

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT \(sql: AccountRepository.columns(schema)) FROM \(sql: schema.qualified(AccountRepository.table))
            WHERE local_id = ANY(\(localIds)) OR email_normalized = ANY(\(normalizedEmails)) OR phone_number = ANY(\(phoneNumbers))
            ORDER BY local_id
            """
        }
    }

    /// The account, narrowly, while it has the enrollment `enrollmentId` of `kind`.
    struct ReadWithFactor: Statement {
        typealias Row = AccountRepository.Row
        let localId: String
        let enrollmentId: String
        let kind: FactorKind

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT \(sql: AccountRepository.profileColumns("NULL::text")), \(sql: AccountRepository.narrowTail(schema))
            FROM \(sql: schema.qualified(AccountRepository.table))
            WHERE local_id = \(localId) AND EXISTS (
                SELECT 1 FROM \(sql: schema.qualified(EnrollmentRepository.table)) e
                WHERE e.local_id = \(localId) AND e.enrollment_id = \(enrollmentId) AND e.kind = \(kind.rawValue))
            """
        }
    }

    /// One page of accounts ordered by id, after `afterLocalId` ('' from the start).
    struct ReadPage: Statement {
        typealias Row = AccountRepository.Row
        static var isCached: Bool { false }
        let afterLocalId: String
        let limit: Int

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT \(sql: AccountRepository.columns(schema)) FROM \(sql: schema.qualified(AccountRepository.table))
            WHERE local_id > \(afterLocalId) ORDER BY local_id LIMIT \(limit)
            """
        }
    }

    /// The stored password hashes of the listed accounts that have one.
    struct ReadPasswordHashes: Statement {
        typealias Row = StoredPasswordHash
        static var isCached: Bool { false }
        let localIds: [String]

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT local_id, password_hash FROM \(sql: schema.qualified(AccountRepository.table))
            WHERE local_id = ANY(\(localIds)) AND password_hash IS NOT NULL ORDER BY local_id
            """
        }
    }

    /// An account's stored password hash.
    struct StoredPasswordHash: StatementRow {
        let localId: String
        let passwordHash: String

        init(_ columns: RowColumns) throws {
            localId = try columns("local_id")
            passwordHash = try columns("password_hash")
        }
    }

    /// Whether the account can still sign in by itself; no row: no such account.
    struct ReadHasWayIn: Statement {
        typealias Row = SingleValue<Bool>
        static var isCached: Bool { false }
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT (a.email IS NOT NULL AND (a.password_hash IS NOT NULL OR a.email_verified)) OR a.phone_number IS NOT NULL
                OR EXISTS (SELECT 1 FROM \(sql: schema.qualified(FederatedIdentityRepository.table)) f WHERE f.local_id = a.local_id)
            FROM \(sql: schema.qualified(AccountRepository.table)) a WHERE a.local_id = \(localId)
            """
        }
    }

    // MARK: Signing in

    /// A sign-in that passed `requiredEnrollment` (when given) recorded, and the account read back
    /// narrowly; no row when it does not exist or lacks the enrollment.
    struct RecordSignInNarrow: Statement {
        typealias Row = AccountRepository.Row
        let localId: String
        let requiredEnrollment: String?
        let requiredKind: String?
        let millis: Int64?
        let asynchronous: Bool

        func query(in schema: TenantSchema) throws -> CachedQuery {
            // An asynchronous commit returns before its WAL record is flushed: the session issued
            // beside it is the sign-in's durable record.
            try """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET last_login_at = CASE WHEN \(millis)::bigint IS NULL THEN now()
                ELSE greatest(last_login_at, to_timestamp(\(millis)::bigint / 1000.0)) END
            WHERE local_id = \(localId)
              AND (\(requiredEnrollment)::text IS NULL OR EXISTS (
                  SELECT 1 FROM \(sql: schema.qualified(EnrollmentRepository.table)) e
                  WHERE e.local_id = \(localId) AND e.enrollment_id = \(requiredEnrollment)
                    AND (\(requiredKind)::text IS NULL OR e.kind = \(requiredKind))))
              AND (NOT \(asynchronous) OR (SELECT set_config('synchronous_commit', 'off', true)) = 'off')
            RETURNING \(sql: AccountRepository.profileColumns("NULL::text")), \(sql: AccountRepository.narrowTail(schema))
            """
        }
    }

    /// A password sign-in recorded; its time in seconds. No row: no such account.
    struct RecordPasswordSignIn: Statement {
        typealias Row = SingleValue<Int64>
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET last_login_at = now() WHERE local_id = \(localId)
            RETURNING floor(extract(epoch FROM last_login_at))::bigint
            """
        }
    }

    /// A password's stored form replaced by another of the same password, while the account still has `old`.
    struct ReplacePasswordHash: Statement {
        static var isCached: Bool { false }
        let localId: String
        let old: String
        let new: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET password_hash = \(new)
            WHERE local_id = \(localId) AND password_hash = \(old)
            """
        }
    }

    // MARK: Changing

    /// `changes` applied and the account read back; no row: no such account. Unique violations
    /// name the email or the number taken.
    struct ApplyChanges: Statement {
        typealias Row = AccountRepository.Row
        let localId: String
        let changes: Changes

        func query(in schema: TenantSchema) throws -> CachedQuery {
            let normalized = changes.email.map(EmailAddress.normalized)
            let validSince = changes.validSince?.date
            return try """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET
                email = coalesce(\(changes.email), email),
                email_normalized = coalesce(\(normalized), email_normalized),
                email_verified = CASE WHEN \(changes.email)::text IS NOT NULL THEN false
                                      ELSE coalesce(\(changes.emailVerified), email_verified) END,
                password_hash = coalesce(\(changes.passwordHash), password_hash),
                display_name = CASE WHEN \(changes.deleteDisplayName) THEN NULL
                                    ELSE coalesce(\(changes.displayName), display_name) END,
                disabled = coalesce(\(changes.disabled), disabled),
                held_since = NULL,
                phone_number = CASE WHEN \(changes.deletePhoneNumber) THEN NULL
                                    ELSE coalesce(\(changes.phoneNumber), phone_number) END,
                photo_url = CASE WHEN \(changes.deletePhotoUrl) THEN NULL ELSE coalesce(\(changes.photoUrl), photo_url) END,
                custom_attributes = CASE WHEN \(changes.customAttributes)::text = '{}' THEN NULL
                                         ELSE coalesce(\(changes.customAttributes), custom_attributes) END,
                valid_since = CASE WHEN \(changes.revokeSessions) THEN \(sql: AccountRepository.sessionsEnd)
                                   ELSE coalesce(\(validSince), valid_since) END
            WHERE local_id = \(localId)
            RETURNING \(sql: AccountRepository.columns(schema))
            """
        }
    }

    /// A trusted provider's profile in place of the one an unproven holder set.
    struct AdoptProfile: Statement {
        static var isCached: Bool { false }
        let localId: String
        let displayName: String?
        let photoUrl: String?

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            UPDATE \(sql: schema.qualified(AccountRepository.table)) SET display_name = \(displayName), photo_url = \(photoUrl)
            WHERE local_id = \(localId)
            """
        }
    }

    /// The first proof of the account's address (``AccountRepository/claim(in:localId:email:keepsPassword:endsSessions:on:)``);
    /// no row when the address was proved already or the account has another address now.
    struct ClaimAddress: Statement {
        typealias Row = Claimed
        static var isCached: Bool { false }
        let localId: String
        let email: String
        let keepsPassword: Bool
        let endsSessions: Bool

        func query(in schema: TenantSchema) -> CachedQuery {
            let accounts = schema.qualified(AccountRepository.table)
            return """
                UPDATE \(sql: accounts) a SET email_verified = true, phone_number = NULL,
                    password_hash = CASE WHEN \(keepsPassword) THEN a.password_hash END,
                    valid_since = CASE WHEN \(endsSessions) THEN \(sql: AccountRepository.sessionsEnd) ELSE a.valid_since END
                FROM (SELECT local_id, password_hash IS NOT NULL AS had_password, phone_number IS NOT NULL AS had_phone_number
                      FROM \(sql: accounts)
                      WHERE local_id = \(localId) AND email_normalized = \(EmailAddress.normalized(email)) AND NOT email_verified
                      FOR UPDATE) before
                WHERE a.local_id = before.local_id
                RETURNING before.had_password, before.had_phone_number
                """
        }
    }

    /// `RECOVER_EMAIL` (``AccountRepository/recover(in:localId:email:changedAt:on:)``); no row: no such account.
    struct RecoverAddress: Statement {
        typealias Row = Recovered
        static var isCached: Bool { false }
        let localId: String
        let email: String
        let changedAt: Date?

        func query(in schema: TenantSchema) throws -> CachedQuery {
            let accounts = schema.qualified(AccountRepository.table)
            return try """
            UPDATE \(sql: accounts) a SET email = \(email), email_normalized = \(EmailAddress.normalized(email)), email_verified = true,
                password_hash = NULL,
                phone_number = CASE WHEN \(changedAt)::timestamptz IS NULL OR a.phone_number_since >= \(changedAt) THEN NULL
                                    ELSE a.phone_number END,
                valid_since = \(sql: AccountRepository.sessionsEnd)
            FROM (SELECT local_id, password_hash IS NOT NULL AS had_password,
                         coalesce(phone_number IS NOT NULL
                                  AND (\(changedAt)::timestamptz IS NULL OR phone_number_since >= \(changedAt)), false) AS new_phone_number
                  FROM \(sql: accounts) WHERE local_id = \(localId) FOR UPDATE) before
            WHERE a.local_id = before.local_id
            RETURNING before.had_password, before.new_phone_number
            """
        }
    }

    // MARK: Deleting

    /// An account; a row when there was one.
    struct DeleteAccount: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(AccountRepository.table)) WHERE local_id = \(localId) RETURNING local_id"
        }
    }

    /// The listed accounts, all of them or only the disabled ones.
    struct DeleteAccounts: Statement {
        static var isCached: Bool { false }
        let localIds: [String]
        let onlyDisabled: Bool

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            DELETE FROM \(sql: schema.qualified(AccountRepository.table))
            WHERE local_id = ANY(\(localIds)) AND (disabled OR NOT \(onlyDisabled))
            """
        }
    }

    /// Which of the listed accounts exist.
    struct ReadExisting: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let localIds: [String]

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT local_id FROM \(sql: schema.qualified(AccountRepository.table)) WHERE local_id = ANY(\(localIds))"
        }
    }

    /// Every account of the schema.
    struct DeleteAllAccounts: Statement {
        static var isCached: Bool { false }

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(AccountRepository.table))"
        }
    }
}
