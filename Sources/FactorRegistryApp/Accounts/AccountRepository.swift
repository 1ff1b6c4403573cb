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
        let inserted = InsertAccount(
            localId: localId, email: email, passwordHash: passwordHash, displayName: displayName, emailVerified: emailVerified,
            disabled: disabled || held, held: held, phoneNumber: phoneNumber, photoUrl: photoUrl, signedIn: signedIn)
        do {
            if let stamped = try await client.first(inserted, in: schema, logger: logger) {
                return Account(
                    localId: localId, email: email, emailVerified: emailVerified, displayName: displayName, disabled: disabled || held,
                    createdAt: String(stamped.createdAtMillis), signInProvider: Self.provider(email: email, phoneNumber: phoneNumber),
                    lastLoginAt: stamped.lastLoginAtMillis.map(String.init), phoneNumber: phoneNumber, photoUrl: photoUrl
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
        let read = ReadAccountsIn(localIds: localIds, normalizedEmails: emails.map(EmailAddress.normalized), phoneNumbers: phoneNumbers)
        return try await client.run(read, in: schema, logger: logger).map { Self.credentials(from: $0).account }
    }

    /// One account by a unique column (`column` is a literal of ours, never input).
    private func select(in schema: TenantSchema, where column: SQLText, equals value: String) async throws
        -> StoredCredentials?
    {
        try await client.first(ReadAccountBy(column: column, value: value), in: schema, logger: logger).map(Self.credentials(from:))
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
    static func profileColumns(_ passwordHash: SQLText) -> SQLText {
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
        let millis: Int64? = if case .at(let millis, _) = record { millis } else { nil }
        let asynchronous = if case .at(_, let asynchronous) = record { asynchronous } else { false }
        let recorded = RecordSignInNarrow(
            localId: localId, requiredEnrollment: requiredEnrollment, requiredKind: requiredKind?.rawValue, millis: millis,
            asynchronous: asynchronous)
        return try await client.first(recorded, in: schema, logger: logger).map { Self.credentials(from: $0).account }
    }

    /// The account, read narrowly as ``recordSignIn(in:localId:requiredEnrollment:requiredKind:record:)``
    /// answers it, while it has the enrollment `enrollmentId` of `kind`; `nil` when it does not
    /// exist or lacks that factor. Records nothing.
    func account(in schema: TenantSchema, localId: String, withFactor enrollmentId: String, of kind: FactorKind) async throws
        -> Account?
    {
        try await client.first(ReadWithFactor(localId: localId, enrollmentId: enrollmentId, kind: kind), in: schema, logger: logger)
            .map { Self.credentials(from: $0).account }
    }

    /// Records a password sign-in; returns its time.
    func recordSignIn(in schema: TenantSchema, localId: String) async throws -> EpochSeconds {
        guard let seconds = try await client.first(RecordPasswordSignIn(localId: localId), in: schema, logger: logger)?.value else {
            throw AccountStoreInconsistent()
        }
        return EpochSeconds(seconds)
    }

    /// Replaces a password's stored form by another of the same password, only while the account
    /// still has `old` (the same password: sessions and `valid_since` stay as they are).
    func replacePasswordHash(in schema: TenantSchema, localId: String, from old: String, to new: String) async throws {
        try await client.run(ReplacePasswordHash(localId: localId, old: old, new: new), in: schema, logger: logger)
    }
}

extension AccountRepository {
    /// Removes an account; `false` when there was none.
    func delete(in schema: TenantSchema, localId: String) async throws -> Bool {
        try await client.first(DeleteAccount(localId: localId), in: schema, logger: logger) != nil
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
                    let unlinked = try await connection.run(
                        FederatedIdentityRepository.UnlinkProviders(localId: localId, providerIds: changes.unlinkProviders), in: schema,
                        logger: logger)
                    for provider in unlinked.map(\.value) {
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
        do {
            return try await connection.first(ApplyChanges(localId: localId, changes: changes), in: schema, logger: logger).map {
                Self.credentials(from: $0).account
            }
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_email_normalized_key" {
            throw EmailTaken()
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_phone_number_key" {
            throw PhoneNumberTaken()
        }
    }

    /// One page of accounts ordered by id, after `afterLocalId`.
    func page(in schema: TenantSchema, afterLocalId: String?, limit: Int) async throws -> [Account] {
        try await client.run(ReadPage(afterLocalId: afterLocalId ?? "", limit: limit), in: schema, logger: logger).map {
            Self.credentials(from: $0).account
        }
    }

    /// The stored password hashes of the listed accounts that have one (an admin's export).
    func passwordHashes(in schema: TenantSchema, localIds: [String]) async throws -> [(String, String)] {
        guard !localIds.isEmpty else { return [] }
        return try await client.run(ReadPasswordHashes(localIds: localIds), in: schema, logger: logger).map {
            ($0.localId, $0.passwordHash)
        }
    }
}

extension AccountRepository {
    /// Deletes the listed accounts (all, or only the disabled ones); returns the ids still present
    /// afterwards, i.e. those kept because they were not disabled.
    func delete(in schema: TenantSchema, localIds: [String], onlyDisabled: Bool) async throws -> Set<String> {
        try await client.run(DeleteAccounts(localIds: localIds, onlyDisabled: onlyDisabled), in: schema, logger: logger)
        return Set(try await client.run(ReadExisting(localIds: localIds), in: schema, logger: logger).map(\.value))
    }
}

extension AccountRepository {
    /// Removes every account of the schema (the development helper's wipe).
    func deleteAll(in schema: TenantSchema) async throws {
        try await client.run(DeleteAllAccounts(), in: schema, logger: logger)
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
        do {
            guard try await connection.first(ImportAccount(record: record, overwrite: overwrite), in: schema, logger: logger) != nil
            else {
                // The conflict update was skipped: the id exists and overwriting was not asked for.
                throw LocalIDTaken()
            }
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
        try await connection.first(
            ClaimAddress(localId: localId, email: email, keepsPassword: keepsPassword, endsSessions: endsSessions), in: schema,
            logger: logger)
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
        try await connection.first(RecoverAddress(localId: localId, email: email, changedAt: changedAt), in: schema, logger: logger)
    }
}

extension AccountRepository {
    /// A trusted provider's profile replaces the one an unproven holder set (a takeover, issue 56).
    func adoptProfile(in schema: TenantSchema, localId: String, displayName: String?, photoUrl: String?, on connection: PostgresConnection)
        async throws
    {
        try await connection.run(
            AdoptProfile(localId: localId, displayName: displayName, photoUrl: photoUrl), in: schema, logger: logger)
    }
}

extension AccountRepository {
    /// Whether the account can still sign in by itself: a password (with its address), an email
    /// link or reset to a verified address, a phone number, a provider link. Passkeys join the
    /// list when they are stored (issue 59).
    func hasWayIn(in schema: TenantSchema, localId: String, on connection: PostgresConnection) async throws -> Bool {
        try await connection.first(ReadHasWayIn(localId: localId), in: schema, logger: logger)?.value ?? false
    }
}
