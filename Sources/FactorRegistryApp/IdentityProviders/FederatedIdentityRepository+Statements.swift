import Contracts
import Foundation
import PostgresNIO
import TenantStore

/// The statements of ``FederatedIdentityRepository``, each a type: its values, its text in a
/// schema, its row. They run unprepared, as they always have.
extension FederatedIdentityRepository {
    /// The account the provider user is linked to; no row: none.
    struct ReadOwner: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let providerId: String
        let rawId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT local_id FROM \(sql: schema.qualified(FederatedIdentityRepository.table))
            WHERE provider_id = \(providerId) AND raw_id = \(rawId)
            """
        }
    }

    /// A provider user linked to an account; the unique keys make two racing links one winner.
    struct InsertLink: Statement {
        static var isCached: Bool { false }
        let profile: ProviderProfile
        let localId: String

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            INSERT INTO \(sql: schema.qualified(FederatedIdentityRepository.table))
                (provider_id, raw_id, local_id, email, display_name, photo_url)
            VALUES (\(profile.providerId), \(profile.rawId), \(localId), \(profile.email), \(profile.displayName), \(profile.photoUrl))
            """
        }
    }

    /// Every link of the account.
    struct DeleteLinksOf: Statement {
        static var isCached: Bool { false }
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(FederatedIdentityRepository.table)) WHERE local_id = \(localId)"
        }
    }

    /// The account's links to the providers `providerIds`; a row per provider id removed.
    struct UnlinkProviders: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let localId: String
        let providerIds: [String]

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            DELETE FROM \(sql: schema.qualified(FederatedIdentityRepository.table))
            WHERE local_id = \(localId) AND provider_id = ANY(\(providerIds)) RETURNING provider_id
            """
        }
    }

    /// The account's links, all of them or those made at or after `since`; a row per provider id removed.
    struct UnlinkSince: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let localId: String
        let since: Date?

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            DELETE FROM \(sql: schema.qualified(FederatedIdentityRepository.table))
            WHERE local_id = \(localId) AND (\(since)::timestamptz IS NULL OR linked_at >= \(since))
            RETURNING provider_id
            """
        }
    }

    /// The profile the provider reports now, kept with the link when it changed.
    struct RefreshProfile: Statement {
        static var isCached: Bool { false }
        let profile: ProviderProfile

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            UPDATE \(sql: schema.qualified(FederatedIdentityRepository.table))
            SET email = \(profile.email), display_name = \(profile.displayName), photo_url = \(profile.photoUrl)
            WHERE provider_id = \(profile.providerId) AND raw_id = \(profile.rawId)
              AND (email, display_name, photo_url) IS DISTINCT FROM (\(profile.email), \(profile.displayName), \(profile.photoUrl))
            """
        }
    }

    /// A nonce's hash recorded as used until `expiresAt` (seconds); no row when it was used already.
    /// Always in ``TenantSchema/control``.
    struct UseNonce: Statement {
        typealias Row = SingleValue<Int32>
        static var isCached: Bool { false }
        let hash: ByteBuffer
        let expiresAt: Int64

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(FederatedIdentityRepository.usedNonces)) (nonce_hash, expires_at)
            VALUES (\(hash), to_timestamp(\(expiresAt)::bigint)) ON CONFLICT (nonce_hash) DO NOTHING RETURNING 1
            """
        }
    }
}
