import AuthVocabulary
import Foundation
import Logging
import PostgresNIO
import TenantStore

/// The account statements other rooms run on their own connection, inside a transaction of theirs
/// (each a type, `AccountRepository+TransactionStatements.swift`):
/// an enrollment or a passkey locks the account first, an out-of-band code or a provider's proof
/// changes it in the commit that uses the code or records the link. Each returns whether the account
/// matched (its row, its address, its number), so the caller knows what changed.
extension AccountRepository {
    /// Locks the account's row until the transaction ends; `false` when there is no such account.
    static func lock(_ localId: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger) async throws
        -> Bool
    {
        try await connection.first(LockAccount(localId: localId), in: schema, logger: logger) != nil
    }

    /// Locks the account's row and says whether it is disabled; `nil` when there is no such account.
    static func lockDisabled(_ localId: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger)
        async throws -> Bool?
    {
        try await connection.first(LockDisabled(localId: localId), in: schema, logger: logger)?.value
    }

    /// Ends every session of the account (``sessionsEnd``).
    static func endSessions(of localId: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        try await connection.run(EndSessions(localId: localId), in: schema, logger: logger)
    }

    /// The address `email` (normalised) is proved: verified, while the account still has it.
    static func verifyEmail(
        of localId: String, normalized email: String?, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        try await connection.first(VerifyEmail(localId: localId, normalizedEmail: email), in: schema, logger: logger) != nil
    }

    /// A password reset through a mail to `email` (normalised): the new password, the address
    /// verified, every session ended; while the account still has that address.
    static func resetPassword(
        of localId: String, normalized email: String?, to passwordHash: String?, in schema: TenantSchema,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        try await connection.first(
            ResetPassword(localId: localId, normalizedEmail: email, passwordHash: passwordHash), in: schema, logger: logger) != nil
    }

    /// An email change confirmed at the new address: it replaces `previous` (normalised, or no
    /// address), verified, and every session ends. The unique index refuses an address another
    /// account took meanwhile (`accounts_email_normalized_key`).
    static func changeEmail(
        of localId: String, from previous: String?, to target: String, in schema: TenantSchema, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Bool {
        try await connection.first(ChangeEmail(localId: localId, previous: previous, target: target), in: schema, logger: logger)
            != nil
    }

    /// The owner says someone else linked `phoneNumber`: it goes, while the account still has it,
    /// and every session ends.
    static func removePhoneNumber(
        of localId: String, _ phoneNumber: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        try await connection.first(RemovePhoneNumber(localId: localId, phoneNumber: phoneNumber), in: schema, logger: logger) != nil
    }

    /// An email link used by a signed-in user: the address becomes theirs, verified, and the sign-in
    /// is recorded; its time in seconds, `nil` when there is no such account.
    static func linkEmail(
        _ email: String, to localId: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> EpochSeconds? {
        try await connection.first(LinkEmail(email: email, localId: localId), in: schema, logger: logger).map { EpochSeconds($0.value) }
    }

    /// The account whose address is `email` (normalised), with the kinds of its factors.
    static func holder(
        ofNormalized email: String, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> AddressHolder? {
        try await connection.first(ReadAddressHolder(normalizedEmail: email), in: schema, logger: logger)
    }

    /// An email link's sign-in of an existing account: the address verified, and the sign-in
    /// recorded unless a second factor must follow (`required`); the last sign-in in seconds.
    static func signInByEmailLink(
        _ localId: String, required: Bool, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> EpochSeconds? {
        try await connection.first(SignInByEmailLink(localId: localId, required: required), in: schema, logger: logger).map {
            EpochSeconds($0.value)
        }
    }

    /// An account made by its email link's sign-in, the address verified; `held`: disabled until
    /// its `beforeCreate` function allows it (``expiredHolds(_:)``). Its sign-in time in seconds.
    static func insertSignedInByEmailLink(
        _ localId: String, email: String, held: Bool, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws -> EpochSeconds {
        guard
            let seconds = try await connection.first(
                InsertSignedInByEmailLink(localId: localId, email: email, held: held), in: schema, logger: logger)?.value
        else { throw AccountStoreInconsistent() }
        return EpochSeconds(seconds)
    }

    /// A provider user linked to an account without an address gives it the provider's.
    static func adoptEmail(
        of localId: String, email: String?, verified: Bool, in schema: TenantSchema, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.run(AdoptEmail(localId: localId, email: email, verified: verified), in: schema, logger: logger)
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
