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

    /// Inserts an account; the unique index on the normalised email makes `EMAIL_EXISTS` race-free.
    func insert(
        in schema: TenantSchema, localId: String, email: String?, passwordHash: String?, displayName: String?
    ) async throws -> Account {
        let accounts = schema.qualified("accounts")
        let normalized = email.map(EmailAddress.normalized)
        do {
            // Only `qualified(_:)` output is spliced into the text; every value is a bind parameter.
            let rows = try await client.query(
                """
                INSERT INTO \(unescaped: accounts) (local_id, email, email_normalized, password_hash, display_name)
                VALUES (\(localId), \(email), \(normalized), \(passwordHash), \(displayName))
                RETURNING (extract(epoch FROM created_at) * 1000)::bigint
                """,
                logger: logger
            )
            for try await createdAt in rows.decode(Int64.self) {
                return Account(
                    localId: localId, email: email, emailVerified: false, displayName: displayName, disabled: false,
                    createdAt: String(createdAt), signInProvider: email == nil ? "anonymous" : "password"
                )
            }
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_email_normalized_key" {
            throw EmailTaken()
        }
        throw AccountStoreInconsistent()
    }
}

struct AccountStoreInconsistent: Error {}
