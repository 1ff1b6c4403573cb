import Foundation
import Logging
import PostgresNIO
import TenantStore

/// Each project's password signer key (``PasswordExport``), sealed, in `control.password_signer_keys`.
struct PasswordSignerKeyRepository: Sendable {
    let client: Database
    let logger: Logger

    static let table: SQLText = "password_signer_keys"

    func sealedKey(of projectId: String) async throws -> Data? {
        try await client.first(ReadKey(projectId: projectId), in: .control, logger: logger).map { Data(buffer: $0.value) }
    }

    /// Stores `sealed` unless the project has a key already: two instances racing keep the first.
    func insertIfAbsent(_ sealed: Data, for projectId: String) async throws {
        try await client.run(InsertKeyIfAbsent(projectId: projectId, sealed: sealed), in: .control, logger: logger)
    }

    /// The project's sealed key; no row: none yet.
    struct ReadKey: Statement {
        typealias Row = SingleValue<ByteBuffer>
        static var isCached: Bool { false }
        let projectId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT sealed_key FROM \(sql: schema.qualified(PasswordSignerKeyRepository.table)) WHERE project_id = \(projectId)"
        }
    }

    /// The project's sealed key, unless it has one.
    struct InsertKeyIfAbsent: Statement {
        static var isCached: Bool { false }
        let projectId: String
        let sealed: Data

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(PasswordSignerKeyRepository.table)) (project_id, sealed_key)
            VALUES (\(projectId), \(ByteBuffer(bytes: sealed)))
            ON CONFLICT (project_id) DO NOTHING
            """
        }
    }
}
