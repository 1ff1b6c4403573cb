import Logging
import PostgresNIO
import ServiceKit
import ServiceLifecycle
import TenantStore

/// Deletes expired pending credentials in every tenant schema, a batch at a time.
///
/// A credential is deleted when it is used; one never used (a sign-in abandoned at its second
/// step) would otherwise stay for good, one row per attempt. Rows that earlier versions marked
/// used expire the same way.
struct PendingCredentialSweeper: Service {
    let catalog: TenantSchemaCatalog
    let interval: Duration
    let logger: Logger

    /// Rows per statement: short transactions, however much is due at once.
    static let batch = 1000

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                // Cancelled sleep: the service is stopping.
                guard (try? await Task.sleep(for: interval)) != nil else { return }
                do {
                    let deleted = try await sweep()
                    if deleted > 0 { logger.debug("expired pending credentials deleted", metadata: ["count": "\(deleted)"]) }
                } catch {
                    logger.warning("expired pending credentials could not be deleted", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// One pass over every tenant schema; how many credentials went.
    func sweep() async throws -> Int {
        var total = 0
        for schema in try await catalog.tenantMigrator.existingSchemas() {
            do {
                while true {
                    let deleted = try await deleteBatch(in: schema)
                    total += deleted
                    if deleted < Self.batch { break }
                }
            } catch where SessionRepository.isUndefinedTable(error) {
                continue  // dropped (or not yet migrated) while the pass ran
            }
        }
        return total
    }

    /// Unprepared on purpose: once a minute per schema does not deserve one of the process's
    /// prepared-statement names.
    private func deleteBatch(in schema: TenantSchema) async throws -> Int {
        let pending = schema.qualified("mfa_pending_credentials")
        let rows = try await catalog.client.query(
            """
            WITH deleted AS (
                DELETE FROM \(unescaped: pending) WHERE credential_hash IN (
                    SELECT credential_hash FROM \(unescaped: pending) WHERE expires_at < now() LIMIT \(Self.batch)
                )
                RETURNING 1
            )
            SELECT count(*) FROM deleted
            """,
            logger: logger
        )
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }
}
