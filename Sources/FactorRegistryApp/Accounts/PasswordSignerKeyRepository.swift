import Foundation
import Logging
import PostgresNIO
import TenantStore

/// Each project's password signer key (``PasswordExport``), sealed, in `control.password_signer_keys`.
struct PasswordSignerKeyRepository: Sendable {
    let client: Database
    let logger: Logger

    func sealedKey(of projectId: String) async throws -> Data? {
        let rows = try await client.query(
            "SELECT sealed_key FROM control.password_signer_keys WHERE project_id = \(projectId)", logger: logger
        )
        for try await sealed in rows.decode(ByteBuffer.self) { return Data(buffer: sealed) }
        return nil
    }

    /// Stores `sealed` unless the project has a key already: two instances racing keep the first.
    func insertIfAbsent(_ sealed: Data, for projectId: String) async throws {
        try await client.query(
            """
            INSERT INTO control.password_signer_keys (project_id, sealed_key) VALUES (\(projectId), \(ByteBuffer(bytes: sealed)))
            ON CONFLICT (project_id) DO NOTHING
            """,
            logger: logger
        )
    }
}
