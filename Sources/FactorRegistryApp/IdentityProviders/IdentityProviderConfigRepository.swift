import Contracts
import Foundation
import JSONRPC
import Logging
import PostgresNIO
import TenantStore

/// Provider configurations in each tenant's (or project's) schema (`idp_configs`): the public part
/// as JSON, the secrets sealed by the caller.
struct IdentityProviderConfigRepository: Sendable {
    let client: Database
    let logger: Logger

    /// A configuration with its sealed secrets, as stored.
    struct Stored: Sendable {
        var config: IdentityProviderConfig
        var sealedClientSecret: Data?
        var sealedPrivateKey: Data?
    }

    struct Exists: Error {}

    func get(in schema: TenantSchema, providerId: String) async throws -> Stored? {
        let rows = try await client.query(
            """
            SELECT config::text AS config, sealed_client_secret, sealed_private_key FROM \(sql: schema.qualified("idp_configs"))
            WHERE provider_id = \(providerId)
            """,
            logger: logger
        )
        for try await row in rows.decode(rows: Stored.self) { return row }
        return nil
    }

    /// One page of one kind, by provider id, after `after`.
    func list(in schema: TenantSchema, kind: IdentityProviderConfig.Kind, after: String?, limit: Int) async throws -> [Stored] {
        let rows = try await client.query(
            """
            SELECT config::text AS config, sealed_client_secret, sealed_private_key FROM \(sql: schema.qualified("idp_configs"))
            WHERE kind = \(kind.rawValue) AND provider_id > \(after ?? "") ORDER BY provider_id LIMIT \(limit)
            """,
            logger: logger
        )
        var found: [Stored] = []
        for try await row in rows.decode(rows: Stored.self) { found.append(row) }
        return found
    }

    /// Inserts (`create`; ``Exists`` when the id is taken) or replaces; `false` when there was
    /// nothing to replace.
    func put(_ stored: Stored, create: Bool, in schema: TenantSchema) async throws -> Bool {
        let table = schema.qualified("idp_configs")
        var config = stored.config
        config.clientSecretSet = false
        config.applePrivateKeySet = false
        let document = String(decoding: try JSONEncoder().encode(config), as: UTF8.self)
        let secret = stored.sealedClientSecret.map { ByteBuffer(bytes: $0) }
        let key = stored.sealedPrivateKey.map { ByteBuffer(bytes: $0) }
        if create {
            do {
                try await client.query(
                    """
                    INSERT INTO \(sql: table) (provider_id, kind, config, sealed_client_secret, sealed_private_key)
                    VALUES (\(config.providerId), \(config.kind.rawValue), \(document)::jsonb, \(secret), \(key))
                    """,
                    logger: logger
                )
                return true
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                throw Exists()
            }
        }
        let rows = try await client.query(
            """
            UPDATE \(sql: table) SET config = \(document)::jsonb, sealed_client_secret = \(secret),
                sealed_private_key = \(key), updated_at = now()
            WHERE provider_id = \(config.providerId) AND kind = \(config.kind.rawValue)
            RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    func delete(in schema: TenantSchema, providerId: String) async throws -> Bool {
        let rows = try await client.query(
            "DELETE FROM \(sql: schema.qualified("idp_configs")) WHERE provider_id = \(providerId) RETURNING 1", logger: logger
        )
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }
}

extension IdentityProviderConfigRepository.Stored: StatementRow {
    /// The stored document says nothing of the secrets; whether each is set comes from its column.
    init(_ columns: RowColumns) throws {
        let document: String = try columns("config")
        let secret: ByteBuffer? = try columns("sealed_client_secret")
        let key: ByteBuffer? = try columns("sealed_private_key")
        config = try JSONDecoder().decode(IdentityProviderConfig.self, from: Data(document.utf8))
        config.clientSecretSet = secret != nil
        config.applePrivateKeySet = key != nil
        sealedClientSecret = secret.map { Data(buffer: $0) }
        sealedPrivateKey = key.map { Data(buffer: $0) }
    }
}
