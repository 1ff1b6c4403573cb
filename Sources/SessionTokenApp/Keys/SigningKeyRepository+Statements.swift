import Foundation
import TenantStore

/// The statements of ``SigningKeyRepository``, each a type: its values, its text in a schema (always
/// ``TenantSchema/control``), its row. They run unprepared: keys change rarely.
extension SigningKeyRepository {
    /// Every key, the oldest first.
    struct ReadKeys: Statement {
        typealias Row = StoredSigningKey
        static var isCached: Bool { false }

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT kid, sealed_private_key, certificate_pem, signing_from FROM \(sql: schema.qualified(SigningKeyRepository.table)) ORDER BY signing_from"
        }
    }

    /// A signing key as stored: its private key sealed.
    struct StoredSigningKey: StatementRow {
        let kid: String
        let sealedPrivateKey: Data
        let certificatePEM: String
        let signingFrom: Date

        init(_ columns: RowColumns) throws {
            kid = try columns("kid")
            sealedPrivateKey = try columns("sealed_private_key")
            certificatePEM = try columns("certificate_pem")
            signingFrom = try columns("signing_from")
        }
    }

    /// The lock that makes concurrent first starts create exactly one key, until the transaction ends.
    struct LockKeys: Statement {
        static var isCached: Bool { false }

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT pg_advisory_xact_lock(hashtext('control.signing_keys'))"
        }
    }

    /// How many keys there are.
    struct CountKeys: Statement {
        typealias Row = SingleValue<Int32>
        static var isCached: Bool { false }

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT count(*)::int FROM \(sql: schema.qualified(SigningKeyRepository.table))"
        }
    }

    /// A new key, its private key sealed.
    struct InsertKey: Statement {
        static var isCached: Bool { false }
        let kid: String
        let sealedPrivateKey: Data
        let certificatePEM: String
        let signingFrom: Date

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            INSERT INTO \(sql: schema.qualified(SigningKeyRepository.table)) (kid, algorithm, sealed_private_key, certificate_pem, signing_from)
            VALUES (\(kid), 'RS256', \(sealedPrivateKey), \(certificatePEM), \(signingFrom))
            """
        }
    }

    /// The keys `kids`.
    struct DeleteKeys: Statement {
        static var isCached: Bool { false }
        let kids: [String]

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(SigningKeyRepository.table)) WHERE kid = ANY(\(kids))"
        }
    }
}
