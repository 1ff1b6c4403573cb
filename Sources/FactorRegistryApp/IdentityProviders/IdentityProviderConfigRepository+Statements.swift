import Contracts
import PostgresNIO
import TenantStore

/// The statements of ``IdentityProviderConfigRepository``, each a type: its values, its text in a
/// schema, its row (``IdentityProviderConfigRepository/Stored``). They run unprepared.
extension IdentityProviderConfigRepository {
    /// The configuration of `providerId`; no row: none.
    struct ReadConfig: Statement {
        typealias Row = Stored
        static var isCached: Bool { false }
        let providerId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT config::text AS config, sealed_client_secret, sealed_private_key FROM \(sql: schema.qualified(IdentityProviderConfigRepository.table))
            WHERE provider_id = \(providerId)
            """
        }
    }

    /// One page of one kind, by provider id, after `after` ('' from the start).
    struct ListConfigs: Statement {
        typealias Row = Stored
        static var isCached: Bool { false }
        let kind: IdentityProviderConfig.Kind
        let after: String
        let limit: Int

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT config::text AS config, sealed_client_secret, sealed_private_key FROM \(sql: schema.qualified(IdentityProviderConfigRepository.table))
            WHERE kind = \(kind.rawValue) AND provider_id > \(after) ORDER BY provider_id LIMIT \(limit)
            """
        }
    }

    /// A new configuration: its public part as JSON, its secrets sealed; a unique violation when
    /// the id is taken.
    struct InsertConfig: Statement {
        static var isCached: Bool { false }
        let providerId: String
        let kind: IdentityProviderConfig.Kind
        let document: String
        let secret: ByteBuffer?
        let key: ByteBuffer?

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            INSERT INTO \(sql: schema.qualified(IdentityProviderConfigRepository.table)) (provider_id, kind, config, sealed_client_secret, sealed_private_key)
            VALUES (\(providerId), \(kind.rawValue), \(document)::jsonb, \(secret), \(key))
            """
        }
    }

    /// The configuration of `providerId` of `kind` replaced; no row when there is none.
    struct ReplaceConfig: Statement {
        typealias Row = SingleValue<Int32>
        static var isCached: Bool { false }
        let providerId: String
        let kind: IdentityProviderConfig.Kind
        let document: String
        let secret: ByteBuffer?
        let key: ByteBuffer?

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            UPDATE \(sql: schema.qualified(IdentityProviderConfigRepository.table)) SET config = \(document)::jsonb, sealed_client_secret = \(secret),
                sealed_private_key = \(key), updated_at = now()
            WHERE provider_id = \(providerId) AND kind = \(kind.rawValue)
            RETURNING 1
            """
        }
    }

    /// The configuration of `providerId` removed; no row when there was none.
    struct DeleteConfig: Statement {
        typealias Row = SingleValue<Int32>
        static var isCached: Bool { false }
        let providerId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(IdentityProviderConfigRepository.table)) WHERE provider_id = \(providerId) RETURNING 1"
        }
    }
}
