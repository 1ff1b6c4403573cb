import AuthVocabulary
import Foundation
import TenantStore

/// The statements of ``PendingCredentials``, each a type: its values, its text in a schema, its row.
extension PendingCredentials {
    /// A new credential, stored by hash, usable for `seconds`.
    struct InsertCredential: Statement {
        let hash: Data
        let localId: String
        let signInProvider: SignInProvider
        let seconds: Double

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            INSERT INTO \(sql: schema.qualified(PendingCredentials.table))
            (credential_hash, local_id, sign_in_provider, expires_at)
            VALUES (\(hash), \(localId), \(signInProvider.rawValue), now() + make_interval(secs => \(seconds)))
            """
        }
    }

    /// The credential with `hash` while it is unused and live; no row otherwise.
    struct ReadUsable: Statement {
        typealias Row = Pending
        let hash: Data

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            SELECT local_id, sign_in_provider FROM \(sql: schema.qualified(PendingCredentials.table))
            WHERE credential_hash = \(hash) AND consumed_at IS NULL AND expires_at > now()
            """
        }
    }

    /// An unused pending credential's account and first factor.
    struct Pending: StatementRow {
        let localId: String
        let signInProvider: SignInProvider

        init(_ columns: RowColumns) throws {
            localId = try columns("local_id")
            signInProvider = SignInProvider(rawValue: try columns("sign_in_provider"))
        }
    }
}
