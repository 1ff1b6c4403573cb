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

    static let table: SQLText = "idp_configs"

    func get(in schema: TenantSchema, providerId: String) async throws -> Stored? {
        try await client.first(ReadConfig(providerId: providerId), in: schema, logger: logger)
    }

    /// One page of one kind, by provider id, after `after`.
    func list(in schema: TenantSchema, kind: IdentityProviderConfig.Kind, after: String?, limit: Int) async throws -> [Stored] {
        try await client.run(ListConfigs(kind: kind, after: after ?? "", limit: limit), in: schema, logger: logger)
    }

    /// Inserts (`create`; ``Exists`` when the id is taken) or replaces; `false` when there was
    /// nothing to replace.
    func put(_ stored: Stored, create: Bool, in schema: TenantSchema) async throws -> Bool {
        var config = stored.config
        config.clientSecretSet = false
        config.applePrivateKeySet = false
        let document = String(decoding: try JSONEncoder().encode(config), as: UTF8.self)
        let secret = stored.sealedClientSecret.map { ByteBuffer(bytes: $0) }
        let key = stored.sealedPrivateKey.map { ByteBuffer(bytes: $0) }
        if create {
            do {
                try await client.run(
                    InsertConfig(providerId: config.providerId, kind: config.kind, document: document, secret: secret, key: key),
                    in: schema, logger: logger)
                return true
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                throw Exists()
            }
        }
        let replaced = ReplaceConfig(providerId: config.providerId, kind: config.kind, document: document, secret: secret, key: key)
        return try await client.first(replaced, in: schema, logger: logger) != nil
    }

    func delete(in schema: TenantSchema, providerId: String) async throws -> Bool {
        try await client.first(DeleteConfig(providerId: providerId), in: schema, logger: logger) != nil
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
