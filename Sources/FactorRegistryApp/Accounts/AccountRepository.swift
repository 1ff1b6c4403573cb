import Contracts
import Foundation
import Logging
import PostgresNIO
import TenantStore

/// Accounts in each tenant's (or project's) schema.
struct AccountRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    struct EmailTaken: Error {}
    struct LocalIDTaken: Error {}

    /// Inserts an account; unique indexes make `EMAIL_EXISTS` and `DUPLICATE_LOCAL_ID` race-free.
    func insert(
        in schema: TenantSchema, localId: String, email: String?, passwordHash: String?, displayName: String?,
        emailVerified: Bool = false, disabled: Bool = false
    ) async throws -> Account {
        let accounts = schema.qualified("accounts")
        let normalized = email.map(EmailAddress.normalized)
        do {
            // Only `qualified(_:)` output is spliced into the text; every value is a bind parameter.
            let rows = try await client.query(
                """
                INSERT INTO \(unescaped: accounts)
                (local_id, email, email_normalized, password_hash, display_name, email_verified, disabled)
                VALUES (\(localId), \(email), \(normalized), \(passwordHash), \(displayName), \(emailVerified), \(disabled))
                RETURNING (extract(epoch FROM created_at) * 1000)::bigint
                """,
                logger: logger
            )
            for try await createdAt in rows.decode(Int64.self) {
                return Account(
                    localId: localId, email: email, emailVerified: emailVerified, displayName: displayName, disabled: disabled,
                    createdAt: String(createdAt), signInProvider: email == nil ? "anonymous" : "password"
                )
            }
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_email_normalized_key" {
            throw EmailTaken()
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_pkey" {
            throw LocalIDTaken()
        }
        throw AccountStoreInconsistent()
    }
}

struct AccountStoreInconsistent: Error {}

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
    func accounts(in schema: TenantSchema, localIds: [String], emails: [String]) async throws -> [Account] {
        let normalized = emails.map(EmailAddress.normalized)
        let accounts = schema.qualified("accounts")
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.columns) FROM \(unescaped: accounts)
            WHERE local_id = ANY(\(localIds)) OR email_normalized = ANY(\(normalized)) ORDER BY local_id
            """,
            logger: logger
        )
        var found: [Account] = []
        for try await row in rows.decode(Row.self) { found.append(Self.credentials(from: row).account) }
        return found
    }

    /// One account by a unique column (`column` is a literal of ours, never input).
    private func select(in schema: TenantSchema, where column: StaticString, equals value: String) async throws
        -> StoredCredentials?
    {
        let accounts = schema.qualified("accounts")
        let rows = try await client.query(
            "SELECT \(unescaped: Self.columns) FROM \(unescaped: accounts) WHERE \(unescaped: "\(column)") = \(value)",
            logger: logger
        )
        for try await row in rows.decode(Row.self) { return Self.credentials(from: row) }
        return nil
    }

    private static let columns = """
        local_id, email, email_verified, display_name, disabled, (extract(epoch FROM created_at) * 1000)::bigint,
        password_hash, extract(epoch FROM valid_since)::bigint, (extract(epoch FROM last_login_at) * 1000)::bigint
        """

    private typealias Row = (String, String?, Bool, String?, Bool, Int64, String?, Int64?, Int64?)

    private static func credentials(from row: Row) -> StoredCredentials {
        let (localId, email, verified, name, disabled, createdAt, hash, validSince, lastLogin) = row
        let account = Account(
            localId: localId, email: email, emailVerified: verified, displayName: name, disabled: disabled,
            createdAt: String(createdAt), signInProvider: email == nil ? "anonymous" : "password",
            validSince: validSince, lastLoginAt: lastLogin.map(String.init)
        )
        return StoredCredentials(account: account, passwordHash: hash)
    }

    /// Records a sign-in; returns its time in seconds since the epoch.
    func recordSignIn(in schema: TenantSchema, localId: String) async throws -> Int64 {
        let accounts = schema.qualified("accounts")
        let rows = try await client.query(
            """
            UPDATE \(unescaped: accounts) SET last_login_at = now() WHERE local_id = \(localId)
            RETURNING extract(epoch FROM last_login_at)::bigint
            """,
            logger: logger
        )
        for try await seconds in rows.decode(Int64.self) { return seconds }
        throw AccountStoreInconsistent()
    }
}

extension AccountRepository {
    /// Removes an account; `false` when there was none.
    func delete(in schema: TenantSchema, localId: String) async throws -> Bool {
        let accounts = schema.qualified("accounts")
        let rows = try await client.query(
            "DELETE FROM \(unescaped: accounts) WHERE local_id = \(localId) RETURNING local_id", logger: logger
        )
        for try await _ in rows.decode(String.self) { return true }
        return false
    }
}
