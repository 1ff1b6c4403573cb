import AuthVocabulary
import Contracts
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Accounts in each tenant's (or project's) schema.
struct AccountRepository: Sendable {
    static let table: SQLText = "accounts"
    let client: Database
    /// The audit trail: a password or email change is recorded in its own transaction.
    let events: SecurityEventLog
    let logger: Logger

    /// Accounts held for a `beforeCreate` function longer than `retention`: the gateway that held
    /// each one stopped before releasing or removing it (a crash mid-call), so none was allowed, and
    /// none keeps its email or number from its owner's next try. The function's deadline is 7 s.
    static func expiredHolds(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "accounts held for a beforeCreate function that never answered", table: Self.table, key: "local_id",
            column: "held_since", retention: retention, indexed: true
        )
    }

    struct EmailTaken: Error {}
    struct LocalIDTaken: Error {}
    struct PhoneNumberTaken: Error {}

    /// Inserts an account; unique indexes make `EMAIL_EXISTS` and `DUPLICATE_LOCAL_ID` race-free.
    /// `signedIn`: the account is created by its own sign-in (a client's sign-up), which is its
    /// first `lastLoginAt`; an admin's creation is no sign-in. `held`: created disabled for its
    /// `beforeCreate` function, and removed by ``expiredHolds(_:)`` unless an update releases it.
    func insert(
        in schema: TenantSchema, localId: String, email: String?, passwordHash: String?, displayName: String?,
        emailVerified: Bool = false, disabled: Bool = false, held: Bool = false, phoneNumber: String? = nil, photoUrl: String? = nil,
        signedIn: Bool = false
    ) async throws -> Account {
        let disabled = disabled || held
        let accounts = schema.qualified(Self.table)
        let normalized = email.map(EmailAddress.normalized)
        do {
            // Only `qualified(_:)` output is spliced into the text; every value is a bind parameter.
            let rows = try await client.query(
                cached: """
                    INSERT INTO \(sql: accounts)
                    (local_id, email, email_normalized, password_hash, display_name, email_verified, disabled, phone_number,
                     photo_url, last_login_at, held_since)
                    VALUES (\(localId), \(email), \(normalized), \(passwordHash), \(displayName), \(emailVerified), \(disabled),
                            \(phoneNumber), \(photoUrl), CASE WHEN \(signedIn) THEN now() END, CASE WHEN \(held) THEN now() END)
                    RETURNING (extract(epoch FROM created_at) * 1000)::bigint AS created_at_ms,
                              (extract(epoch FROM last_login_at) * 1000)::bigint AS last_login_at_ms
                    """,
                logger: logger
            )
            for try await inserted in rows.decode(rows: Inserted.self) {
                return Account(
                    localId: localId, email: email, emailVerified: emailVerified, displayName: displayName, disabled: disabled,
                    createdAt: String(inserted.createdAtMillis), signInProvider: Self.provider(email: email, phoneNumber: phoneNumber),
                    lastLoginAt: inserted.lastLoginAtMillis.map(String.init), phoneNumber: phoneNumber, photoUrl: photoUrl
                )
            }
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_email_normalized_key" {
            throw EmailTaken()
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_pkey" {
            throw LocalIDTaken()
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_phone_number_key" {
            throw PhoneNumberTaken()
        }
        throw AccountStoreInconsistent()
    }
}

/// The times an insert stamps on a new account.
private struct Inserted: StatementRow {
    let createdAtMillis: Int64
    let lastLoginAtMillis: Int64?

    init(_ columns: RowColumns) throws {
        createdAtMillis = try columns("created_at_ms")
        lastLoginAtMillis = try columns("last_login_at_ms")
    }
}

struct AccountStoreInconsistent: Error {}

extension AccountRepository {
    /// How an account signs in by itself: with its email, its phone, or (neither) anonymously.
    /// An account with neither that came from an identity provider signs in with it.
    static func provider(email: String?, phoneNumber: String?, federated: String? = nil) -> SignInProvider {
        email != nil ? .password : phoneNumber != nil ? .phone : federated.map(SignInProvider.federated) ?? .anonymous
    }
}

/// A stored account with its password hash, for the first factor only.
struct StoredCredentials: Sendable {
    let account: Account
    let passwordHash: String?
}

extension AccountRepository {
    func credentials(in schema: TenantSchema, email: String) async throws -> StoredCredentials? {
        try await select(in: schema, where: "email_normalized", equals: EmailAddress.normalized(email))
    }

    func account(in schema: TenantSchema, localId: String) async throws -> Account? {
        try await select(in: schema, where: "local_id", equals: localId)?.account
    }

    /// Accounts whose id or normalised email is in the lists, each once, ordered by id.
    func accounts(in schema: TenantSchema, localIds: [String], emails: [String], phoneNumbers: [String] = []) async throws
        -> [Account]
    {
        let normalized = emails.map(EmailAddress.normalized)
        let accounts = schema.qualified(Self.table)
        let rows = try await client.query(
            """
            SELECT \(sql: Self.columns(schema)) FROM \(sql: accounts)
            WHERE local_id = ANY(\(localIds)) OR email_normalized = ANY(\(normalized)) OR phone_number = ANY(\(phoneNumbers))
            ORDER BY local_id
            """,
            logger: logger
        )
        var found: [Account] = []
        for try await row in rows.decode(rows: Row.self) { found.append(Self.credentials(from: row).account) }
        return found
    }

    /// One account by a unique column (`column` is a literal of ours, never input).
    private func select(in schema: TenantSchema, where column: SQLText, equals value: String) async throws
        -> StoredCredentials?
    {
        let accounts = schema.qualified(Self.table)
        let rows = try await client.query(
            cached: "SELECT \(sql: Self.columns(schema)) FROM \(sql: accounts) WHERE \(sql: column) = \(value)",
            logger: logger
        )
        for try await row in rows.decode(rows: Row.self) { return Self.credentials(from: row) }
        return nil
    }

    /// The columns of an account: its enrollments as a JSON array (oldest first; `[]` for none),
    /// then its linked provider users (``identities(_:)``).
    static func columns(_ schema: TenantSchema) -> SQLText {
        let enrollments = schema.qualified(EnrollmentRepository.table)
        return """
            \(profileColumns("password_hash")),
            (SELECT coalesce(json_agg(json_build_object(
                'mfaEnrollmentId', e.enrollment_id, 'kind', e.kind, 'displayName', e.display_name,
                'phoneNumber', e.phone_number,
                'enrolledAt', to_char(e.enrolled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
              ORDER BY e.enrolled_at, e.enrollment_id), '[]')::text
             FROM \(enrollments) e WHERE e.local_id = \(schema.qualified(Self.table)).local_id) AS enrollments,
            \(identities(schema)) AS identities
            """
    }

    /// An account's linked provider users as a JSON array (`[]` for none): also in the narrow reads,
    /// since the ID token a second-factor sign-in ends with lists them (`firebase.identities`).
    static func identities(_ schema: TenantSchema) -> SQLText {
        """
        (SELECT coalesce(json_agg(json_build_object(
            'providerId', f.provider_id, 'rawId', f.raw_id, 'email', f.email, 'displayName', f.display_name,
            'photoUrl', f.photo_url) ORDER BY f.linked_at, f.provider_id), '[]')::text
         FROM \(schema.qualified(FederatedIdentityRepository.table)) f WHERE f.local_id = \(schema.qualified(Self.table)).local_id)
        """
    }

    /// What the narrow reads select in place of the enrollments and identities of ``columns(_:)``:
    /// no enrollments (NULL, which also says the password was not looked at), the identities.
    static func narrowTail(_ schema: TenantSchema) -> SQLText { "NULL::text AS enrollments, \(identities(schema)) AS identities" }

    /// An account's own columns, up to `photo_url`, with `passwordHash` in the password hash's place.
    private static func profileColumns(_ passwordHash: SQLText) -> SQLText {
        """
        local_id, email, email_verified, display_name, disabled, (extract(epoch FROM created_at) * 1000)::bigint AS created_at_ms,
        \(passwordHash) AS password_hash, floor(extract(epoch FROM valid_since))::bigint AS valid_since_s,
        (extract(epoch FROM last_login_at) * 1000)::bigint AS last_login_at_ms, custom_attributes, phone_number, photo_url
        """
    }

    /// An account's row as ``columns(_:)`` and the narrow reads select it.
    struct Row: StatementRow {
        let localId: String
        let email: String?
        let emailVerified: Bool
        let displayName: String?
        let disabled: Bool
        let createdAtMillis: Int64
        let passwordHash: String?
        let validSince: EpochSeconds?
        let lastLoginAtMillis: Int64?
        let customAttributes: String?
        let phoneNumber: String?
        let photoUrl: String?
        /// The enrollments as JSON; `nil` in a narrow read.
        let enrollments: String?
        let identities: String?

        init(_ columns: RowColumns) throws {
            localId = try columns("local_id")
            email = try columns("email")
            emailVerified = try columns("email_verified")
            displayName = try columns("display_name")
            disabled = try columns("disabled")
            createdAtMillis = try columns("created_at_ms")
            passwordHash = try columns("password_hash")
            validSince = (try columns("valid_since_s") as Int64?).map(EpochSeconds.init(rawValue:))
            lastLoginAtMillis = try columns("last_login_at_ms")
            customAttributes = try columns("custom_attributes")
            phoneNumber = try columns("phone_number")
            photoUrl = try columns("photo_url")
            enrollments = try columns("enrollments")
            identities = try columns("identities")
        }
    }

    /// An account from its row. A full read (``columns(_:)``) has an enrollments array, `[]` at
    /// least, and says whether a password is set; a narrow one has neither.
    static func credentials(from row: Row) -> StoredCredentials {
        let identities = FederatedIdentityJSON.decode(row.identities)
        let account = Account(
            localId: row.localId, email: row.email, emailVerified: row.emailVerified, displayName: row.displayName,
            disabled: row.disabled, createdAt: String(row.createdAtMillis),
            signInProvider: provider(email: row.email, phoneNumber: row.phoneNumber, federated: identities?.first?.providerId),
            validSince: row.validSince, lastLoginAt: row.lastLoginAtMillis.map(String.init), customAttributes: row.customAttributes,
            phoneNumber: row.phoneNumber, mfaInfo: EnrollmentJSON.decode(row.enrollments), photoUrl: row.photoUrl,
            federatedIdentities: identities.flatMap { $0.isEmpty ? nil : $0 },
            passwordSet: row.enrollments == nil ? nil : row.passwordHash != nil
        )
        return StoredCredentials(account: account, passwordHash: row.passwordHash)
    }

    /// Records a sign-in that passed `requiredEnrollment` (when given) and reads the account back
    /// without its enrollments or password hash; `nil` when it does not exist or lacks the
    /// enrollment. One narrow statement: the hottest flow's, about half the general update's cost.
    func recordSignIn(
        in schema: TenantSchema, localId: String, requiredEnrollment: String?, requiredKind: FactorKind?,
        record: RecordSignIn.Recording = .now
    ) async throws -> Account? {
        let requiredKind = requiredKind?.rawValue
        let accounts = schema.qualified(Self.table)
        let millis: Int64? = if case .at(let millis, _) = record { millis } else { nil }
        // An asynchronous commit returns before its WAL record is
        // flushed: the session issued beside it is the sign-in's durable record.
        let asynchronous = if case .at(_, let asynchronous) = record { asynchronous } else { false }
        let rows = try await client.query(
            cached: """
                UPDATE \(sql: accounts) SET last_login_at = CASE WHEN \(millis)::bigint IS NULL THEN now()
                    ELSE greatest(last_login_at, to_timestamp(\(millis)::bigint / 1000.0)) END
                WHERE local_id = \(localId)
                  AND (\(requiredEnrollment)::text IS NULL OR EXISTS (
                      SELECT 1 FROM \(sql: schema.qualified(EnrollmentRepository.table)) e
                      WHERE e.local_id = \(localId) AND e.enrollment_id = \(requiredEnrollment)
                        AND (\(requiredKind)::text IS NULL OR e.kind = \(requiredKind))))
                  AND (NOT \(asynchronous) OR (SELECT set_config('synchronous_commit', 'off', true)) = 'off')
                RETURNING \(sql: Self.profileColumns("NULL::text")), \(sql: Self.narrowTail(schema))
                """,
            logger: logger
        )
        for try await row in rows.decode(rows: Row.self) { return Self.credentials(from: row).account }
        return nil
    }

    /// The account, read narrowly as ``recordSignIn(in:localId:requiredEnrollment:requiredKind:record:)``
    /// answers it, while it has the enrollment `enrollmentId` of `kind`; `nil` when it does not
    /// exist or lacks that factor. Records nothing.
    func account(in schema: TenantSchema, localId: String, withFactor enrollmentId: String, of kind: FactorKind) async throws
        -> Account?
    {
        let rows = try await client.query(
            cached: """
                SELECT \(sql: Self.profileColumns("NULL::text")), \(sql: Self.narrowTail(schema)) FROM \(sql: schema.qualified(Self.table))
                WHERE local_id = \(localId) AND EXISTS (
                    SELECT 1 FROM \(sql: schema.qualified(EnrollmentRepository.table)) e
                    WHERE e.local_id = \(localId) AND e.enrollment_id = \(enrollmentId) AND e.kind = \(kind.rawValue))
                """,
            logger: logger
        )
        for try await row in rows.decode(rows: Row.self) { return Self.credentials(from: row).account }
        return nil
    }

    /// Records a password sign-in; returns its time.
    func recordSignIn(in schema: TenantSchema, localId: String) async throws -> EpochSeconds {
        let accounts = schema.qualified(Self.table)
        let rows = try await client.query(
            cached: """
                UPDATE \(sql: accounts) SET last_login_at = now() WHERE local_id = \(localId)
                RETURNING floor(extract(epoch FROM last_login_at))::bigint
                """,
            logger: logger
        )
        for try await seconds in rows.decode(Int64.self) { return EpochSeconds(seconds) }
        throw AccountStoreInconsistent()
    }

    /// Replaces a password's stored form by another of the same password, only while the account
    /// still has `old` (the same password: sessions and `valid_since` stay as they are).
    func replacePasswordHash(in schema: TenantSchema, localId: String, from old: String, to new: String) async throws {
        let accounts = schema.qualified(Self.table)
        try await client.query(
            "UPDATE \(sql: accounts) SET password_hash = \(new) WHERE local_id = \(localId) AND password_hash = \(old)",
            logger: logger
        )
    }
}

extension AccountRepository {
    /// Removes an account; `false` when there was none.
    func delete(in schema: TenantSchema, localId: String) async throws -> Bool {
        let accounts = schema.qualified(Self.table)
        let rows = try await client.query(
            "DELETE FROM \(sql: accounts) WHERE local_id = \(localId) RETURNING local_id", logger: logger
        )
        for try await _ in rows.decode(String.self) { return true }
        return false
    }
}

extension AccountRepository {
    /// The changes of one update, already checked; `nil` members stay as they are.
    struct Changes: Sendable {
        var email: String?
        var passwordHash: String?
        var displayName: String?
        var deleteDisplayName = false
        var emailVerified: Bool?
        var disabled: Bool?
        var validSince: EpochSeconds?
        /// Developer claims to store; `{}` clears them.
        var customAttributes: String?
        /// End every session (a password or email change): `valid_since` moves to ``sessionsEnd``.
        var revokeSessions = false
        var phoneNumber: String?
        var deletePhoneNumber = false
        var photoUrl: String?
        var deletePhotoUrl = false
        /// Provider ids whose linked users are removed (`federated_identities`).
        var unlinkProviders: [String] = []
        /// Refuse (``NoWayInLeft``) a change that leaves the account no way to sign in.
        var keepWayIn = false
    }

    /// The change would leave the account no way to sign in (issue 56, F-12).
    struct NoWayInLeft: Error {}

    /// Applies `changes` and reads the account back in one statement, in a transaction that also
    /// records a password, email or phone number change in the audit trail; `nil` when it does not exist.
    func update(in schema: TenantSchema, localId: String, _ changes: Changes) async throws -> Account? {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                if !changes.unlinkProviders.isEmpty {
                    let rows = try await connection.query(
                        """
                        DELETE FROM \(sql: schema.qualified(FederatedIdentityRepository.table))
                        WHERE local_id = \(localId) AND provider_id = ANY(\(changes.unlinkProviders)) RETURNING provider_id
                        """,
                        logger: logger
                    )
                    for try await provider in rows.decode(String.self) {
                        try await events.record(
                            .providerUnlinked, localId: localId, details: ["provider": provider], in: schema, on: connection)
                    }
                }
                guard let account = try await apply(changes, in: schema, localId: localId, on: connection) else { return nil }
                // After the update, which holds the row's lock: a racing unlink of the other way in
                // waits, then sees this one's removal.
                if changes.keepWayIn, try await !hasWayIn(in: schema, localId: localId, on: connection) { throw NoWayInLeft() }
                if changes.passwordHash != nil {
                    try await events.record(.passwordChanged, localId: localId, in: schema, on: connection)
                }
                if changes.email != nil {
                    try await events.record(.emailChanged, localId: localId, in: schema, on: connection)
                }
                if changes.phoneNumber != nil || changes.deletePhoneNumber {
                    try await events.record(.phoneNumberChanged, localId: localId, in: schema, on: connection)
                }
                return account
            }
        } catch let error as TransactionError {
            if let refusal = error.closureError, error.rollbackError == nil { throw refusal }
            throw error
        }
    }

    private func apply(_ changes: Changes, in schema: TenantSchema, localId: String, on connection: PostgresConnection) async throws
        -> Account?
    {
        let accounts = schema.qualified(Self.table)
        let normalized = changes.email.map(EmailAddress.normalized)
        let validSince = changes.validSince?.date
        do {
            let rows = try await connection.query(
                cached: """
                    UPDATE \(sql: accounts) SET
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
                        valid_since = CASE WHEN \(changes.revokeSessions) THEN \(sql: Self.sessionsEnd)
                                           ELSE coalesce(\(validSince), valid_since) END
                    WHERE local_id = \(localId)
                    RETURNING \(sql: Self.columns(schema))
                    """,
                logger: logger
            )
            for try await row in rows.decode(rows: Row.self) { return Self.credentials(from: row).account }
            return nil
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_email_normalized_key" {
            throw EmailTaken()
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_phone_number_key" {
            throw PhoneNumberTaken()
        }
    }

    /// One page of accounts ordered by id, after `afterLocalId`.
    func page(in schema: TenantSchema, afterLocalId: String?, limit: Int) async throws -> [Account] {
        let accounts = schema.qualified(Self.table)
        let rows = try await client.query(
            """
            SELECT \(sql: Self.columns(schema)) FROM \(sql: accounts)
            WHERE local_id > \(afterLocalId ?? "") ORDER BY local_id LIMIT \(limit)
            """,
            logger: logger
        )
        var found: [Account] = []
        for try await row in rows.decode(rows: Row.self) { found.append(Self.credentials(from: row).account) }
        return found
    }

    /// The stored password hashes of the listed accounts that have one (an admin's export).
    func passwordHashes(in schema: TenantSchema, localIds: [String]) async throws -> [(String, String)] {
        guard !localIds.isEmpty else { return [] }
        let accounts = schema.qualified(Self.table)
        let rows = try await client.query(
            """
            SELECT local_id, password_hash FROM \(sql: accounts)
            WHERE local_id = ANY(\(localIds)) AND password_hash IS NOT NULL ORDER BY local_id
            """,
            logger: logger
        )
        var found: [(String, String)] = []
        for try await row in rows.decode(rows: StoredPasswordHash.self) { found.append((row.localId, row.passwordHash)) }
        return found
    }

    /// An account's stored password hash.
    private struct StoredPasswordHash: StatementRow {
        let localId: String
        let passwordHash: String

        init(_ columns: RowColumns) throws {
            localId = try columns("local_id")
            passwordHash = try columns("password_hash")
        }
    }
}

extension AccountRepository {
    /// Deletes the listed accounts (all, or only the disabled ones); returns the ids still present
    /// afterwards, i.e. those kept because they were not disabled.
    func delete(in schema: TenantSchema, localIds: [String], onlyDisabled: Bool) async throws -> Set<String> {
        let accounts = schema.qualified(Self.table)
        try await client.query(
            "DELETE FROM \(sql: accounts) WHERE local_id = ANY(\(localIds)) AND (disabled OR NOT \(onlyDisabled))",
            logger: logger
        )
        let rows = try await client.query(
            "SELECT local_id FROM \(sql: accounts) WHERE local_id = ANY(\(localIds))", logger: logger
        )
        var kept: Set<String> = []
        for try await id in rows.decode(String.self) { kept.insert(id) }
        return kept
    }
}

extension AccountRepository {
    /// Removes every account of the schema (the development helper's wipe).
    func deleteAll(in schema: TenantSchema) async throws {
        try await client.query("DELETE FROM \(sql: schema.qualified(Self.table))", logger: logger)
    }
}

extension AccountRepository {
    /// One account of an import, checked and with its password hash in our stored form.
    struct ImportRecord: Sendable {
        var localId: String
        var email: String?
        var emailVerified: Bool
        var displayName: String?
        var photoUrl: String?
        var disabled: Bool
        var phoneNumber: String?
        var customAttributes: String?
        var passwordHash: String?
        var createdAtMillis: Int64?
        var lastLoginAtMillis: Int64?
    }

    /// Inserts an imported account, or replaces the one with its `localId` when `overwrite`, on the
    /// connection of the transaction that also writes its factors and links (``AccountImporter``).
    func importAccount(in schema: TenantSchema, _ record: ImportRecord, overwrite: Bool, on connection: PostgresConnection)
        async throws
    {
        let accounts = schema.qualified(Self.table)
        let normalized = record.email.map(EmailAddress.normalized)
        // Without one, the database's clock, which sign-in times also use (SignedInUser compares them).
        let createdAt = record.createdAtMillis.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        let lastLoginAt = record.lastLoginAtMillis.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        do {
            let rows = try await connection.query(
                """
                INSERT INTO \(sql: accounts)
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
                    valid_since = \(sql: Self.sessionsEnd)
                WHERE \(overwrite)
                RETURNING local_id
                """,
                logger: logger
            )
            for try await _ in rows.decode(String.self) { return }
            // The conflict update was skipped: the id exists and overwriting was not asked for.
            throw LocalIDTaken()
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_email_normalized_key" {
            throw EmailTaken()
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_phone_number_key" {
            throw PhoneNumberTaken()
        }
    }
}

extension AccountRepository {
    /// When an account's sessions end: at the start of the next second. ID tokens count whole
    /// seconds and a session is refused only when it began strictly before `valid_since`, so a
    /// boundary at the current second would leave a session begun in that same second alive (issue
    /// 56, F-6). Every flow that ends sessions writes this; the gateway mints the answer's own tokens
    /// once that second has begun (`SessionBoundary`), so the caller's new session survives.
    static let sessionsEnd: SQLText = "date_trunc('second', now()) + interval '1 second'"

    /// What an address's first proof took from the account (``claim(in:localId:email:keepsPassword:endsSessions:on:)``).
    struct Claimed: StatementRow {
        let hadPassword: Bool
        let hadPhoneNumber: Bool

        init(_ columns: RowColumns) throws {
            hadPassword = try columns("had_password")
            hadPhoneNumber = try columns("had_phone_number")
        }
    }

    /// The first proof of the account's address `email` (issue 56, F-1): while nobody had proved it,
    /// whoever signed it up is not known to own it, so the address becomes verified, the phone
    /// number goes, the password too unless `keepsPassword`, and with `endsSessions` every session
    /// ends. The row is locked first, so a link racing the proof waits for it. `nil` when the
    /// address was proved already, or the account has another address now: nothing changes then.
    func claim(
        in schema: TenantSchema, localId: String, email: String, keepsPassword: Bool, endsSessions: Bool, on connection: PostgresConnection
    ) async throws -> Claimed? {
        let accounts = schema.qualified(Self.table)
        let rows = try await connection.query(
            """
            UPDATE \(sql: accounts) a SET email_verified = true, phone_number = NULL,
                password_hash = CASE WHEN \(keepsPassword) THEN a.password_hash END,
                valid_since = CASE WHEN \(endsSessions) THEN \(sql: Self.sessionsEnd) ELSE a.valid_since END
            FROM (SELECT local_id, password_hash IS NOT NULL AS had_password, phone_number IS NOT NULL AS had_phone_number
                  FROM \(sql: accounts)
                  WHERE local_id = \(localId) AND email_normalized = \(EmailAddress.normalized(email)) AND NOT email_verified
                  FOR UPDATE) before
            WHERE a.local_id = before.local_id
            RETURNING before.had_password, before.had_phone_number
            """,
            logger: logger
        )
        for try await claimed in rows.decode(rows: Claimed.self) { return claimed }
        return nil
    }

    /// What an email recovery took back (``recover(in:localId:email:changedAt:on:)``).
    struct Recovered: StatementRow {
        let hadPassword: Bool
        /// The phone number was set after the change, so it went.
        let phoneNumberRemoved: Bool

        init(_ columns: RowColumns) throws {
            hadPassword = try columns("had_password")
            phoneNumberRemoved = try columns("new_phone_number")
        }
    }

    /// `RECOVER_EMAIL` (issue 56, F-7): the address the link was mailed to comes back, verified,
    /// whatever the account's address is now (after A→B→C, A's link still undoes the takeover);
    /// the password goes, whoever set it, and so does a phone number set since the change
    /// (`changedAt`, the link's making; `nil`: whenever it was set); every session ends. `nil`: no such account.
    func recover(in schema: TenantSchema, localId: String, email: String, changedAt: Date?, on connection: PostgresConnection)
        async throws -> Recovered?
    {
        let accounts = schema.qualified(Self.table)
        let rows = try await connection.query(
            """
            UPDATE \(sql: accounts) a SET email = \(email), email_normalized = \(EmailAddress.normalized(email)), email_verified = true,
                password_hash = NULL,
                phone_number = CASE WHEN \(changedAt)::timestamptz IS NULL OR a.phone_number_since >= \(changedAt) THEN NULL
                                    ELSE a.phone_number END,
                valid_since = \(sql: Self.sessionsEnd)
            FROM (SELECT local_id, password_hash IS NOT NULL AS had_password,
                         coalesce(phone_number IS NOT NULL
                                  AND (\(changedAt)::timestamptz IS NULL OR phone_number_since >= \(changedAt)), false) AS new_phone_number
                  FROM \(sql: accounts) WHERE local_id = \(localId) FOR UPDATE) before
            WHERE a.local_id = before.local_id
            RETURNING before.had_password, before.new_phone_number
            """,
            logger: logger
        )
        for try await recovered in rows.decode(rows: Recovered.self) { return recovered }
        return nil
    }
}

extension AccountRepository {
    /// A trusted provider's profile replaces the one an unproven holder set (a takeover, issue 56).
    func adoptProfile(in schema: TenantSchema, localId: String, displayName: String?, photoUrl: String?, on connection: PostgresConnection)
        async throws
    {
        try await connection.query(
            """
            UPDATE \(sql: schema.qualified(Self.table)) SET display_name = \(displayName), photo_url = \(photoUrl)
            WHERE local_id = \(localId)
            """,
            logger: logger
        )
    }
}

extension AccountRepository {
    /// Whether the account can still sign in by itself: a password (with its address), an email
    /// link or reset to a verified address, a phone number, a provider link. Passkeys join the
    /// list when they are stored (issue 59).
    func hasWayIn(in schema: TenantSchema, localId: String, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT (a.email IS NOT NULL AND (a.password_hash IS NOT NULL OR a.email_verified)) OR a.phone_number IS NOT NULL
                OR EXISTS (SELECT 1 FROM \(sql: schema.qualified(FederatedIdentityRepository.table)) f WHERE f.local_id = a.local_id)
            FROM \(sql: schema.qualified(Self.table)) a WHERE a.local_id = \(localId)
            """,
            logger: logger
        )
        for try await wayIn in rows.decode(Bool.self) { return wayIn }
        return false
    }
}
