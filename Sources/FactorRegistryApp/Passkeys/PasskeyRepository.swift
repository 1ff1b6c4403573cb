import Contracts
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// The only room that names `passkeys` (each tenant's schema): an account's WebAuthn credentials,
/// keyed by credential id (unique in the scope), deleted with their account. Each statement decodes
/// into a `Row` of its own.
struct PasskeyRepository: Sendable {
    let client: Database
    let events: SecurityEventLog
    let logger: Logger

    static let table: SQLText = "passkeys"

    enum AddOutcome: Sendable, Equatable {
        case added
        case accountMissing
        case exists
        case overLimit
    }

    /// Inserts the credential if the account exists and has fewer than `maximum` passkeys, its row
    /// locked meanwhile; audited in the same transaction.
    func add(_ credential: Stored, localId: String, maximum: Int, in schema: TenantSchema) async throws -> AddOutcome {
        let passkeys = schema.qualified(Self.table)
        let (events, logger) = (self.events, self.logger)
        return try await client.withTransaction(logger: logger) { connection -> AddOutcome in
            // The lock first, the count after it in a statement of its own: a count read in the
            // locking statement would see the snapshot from before the wait, without the passkey the
            // enrollment that held the lock just added.
            guard try await AccountRepository.lock(localId, in: schema, on: connection, logger: logger) else { return .accountMissing }
            struct CountRow { let count: Int64 }
            let counted = try await connection.query("SELECT count(*) FROM \(sql: passkeys) WHERE local_id = \(localId)", logger: logger)
            var row = CountRow(count: 0)
            for try await count in counted.decode(Int64.self) { row = CountRow(count: count) }
            guard row.count < Int64(maximum) else { return .overLimit }
            do {
                try await connection.query(
                    """
                    INSERT INTO \(sql: passkeys)
                        (credential_id, local_id, public_key, algorithm, sign_count, name, aaguid, backup_eligible, backed_up)
                    VALUES (\(ByteBuffer(bytes: credential.credentialId)), \(localId), \(ByteBuffer(bytes: credential.publicKey)),
                            \(credential.algorithm), \(credential.signCount), \(credential.name), \(ByteBuffer(bytes: credential.aaguid)),
                            \(credential.backupEligible), \(credential.backedUp))
                    """,
                    logger: logger
                )
            } catch let error as PSQLError where error.serverInfo?[.constraintName] == "passkeys_pkey" {
                return .exists
            }
            try await events.record(
                .factorEnrolled, localId: localId, details: ["kind": "passkey", "credentialId": Base64URL.encode(credential.credentialId)],
                in: schema, on: connection
            )
            return .added
        }
    }

    /// A passkey as stored.
    struct Stored: Sendable, Equatable {
        var credentialId: [UInt8]
        var publicKey: [UInt8]
        var algorithm: Int32
        var signCount: Int64
        var name: String
        var aaguid: [UInt8]
        var backupEligible: Bool
        var backedUp: Bool
    }

    struct FoundRow: StatementRow {
        let localId: String
        let stored: Stored

        init(_ columns: RowColumns) throws {
            localId = try columns("local_id")
            stored = Stored(
                credentialId: Array(try columns("credential_id", as: ByteBuffer.self).readableBytesView),
                publicKey: Array(try columns("public_key", as: ByteBuffer.self).readableBytesView), algorithm: try columns("algorithm"),
                signCount: try columns("sign_count"), name: try columns("name"),
                aaguid: Array(try columns("aaguid", as: ByteBuffer.self).readableBytesView),
                backupEligible: try columns("backup_eligible"), backedUp: try columns("backed_up")
            )
        }
    }

    func find(credentialId: [UInt8], in schema: TenantSchema) async throws -> FoundRow? {
        let rows = try await client.query(
            """
            SELECT local_id, credential_id, public_key, algorithm, sign_count, name, aaguid, backup_eligible, backed_up
            FROM \(sql: schema.qualified(Self.table)) WHERE credential_id = \(ByteBuffer(bytes: credentialId))
            """,
            logger: logger
        )
        for try await row in rows.decode(rows: FoundRow.self) { return row }
        return nil
    }

    /// How many passkeys had the credential id, and how many of those moved their counter.
    private struct UseCounts: StatementRow {
        let found: Int64
        let moved: Int64

        init(_ columns: RowColumns) throws {
            found = try columns("found")
            moved = try columns("moved")
        }
    }

    enum UseOutcome: Sendable, Equatable {
        case recorded
        case moved
        case gone
    }

    /// Sets the counter only from the value the sign-in was checked against.
    func recordUse(credentialId: [UInt8], from previous: Int64, to next: Int64, in schema: TenantSchema) async throws -> UseOutcome {
        let table = schema.qualified(Self.table)
        let rows = try await client.query(
            """
            WITH found AS (SELECT credential_id, sign_count FROM \(sql: table) WHERE credential_id = \(ByteBuffer(bytes: credentialId))),
                 moved AS (
                     UPDATE \(sql: table) p SET sign_count = \(next), last_used_at = now()
                     FROM found WHERE p.credential_id = found.credential_id AND found.sign_count = \(previous)
                     RETURNING p.credential_id)
            SELECT (SELECT count(*) FROM found) AS found, (SELECT count(*) FROM moved) AS moved
            """,
            logger: logger
        )
        for try await counts in rows.decode(rows: UseCounts.self) {
            return counts.found == 0 ? .gone : counts.moved == 1 ? .recorded : .moved
        }
        return .gone
    }

    /// Deletes the account's passkeys among `credentialIds`, each audited; returns those that went.
    func remove(credentialIds: [[UInt8]], localId: String, in schema: TenantSchema) async throws -> [[UInt8]] {
        let table = schema.qualified(Self.table)
        let hex = credentialIds.map { $0.map { String(format: "%02x", $0) }.joined() }
        let (events, logger) = (self.events, self.logger)
        return try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                DELETE FROM \(sql: table) WHERE local_id = \(localId)
                AND credential_id IN (SELECT decode(id, 'hex') FROM unnest(\(hex)::text[]) AS id)
                RETURNING credential_id
                """,
                logger: logger
            )
            var removed: [[UInt8]] = []
            for try await id in rows.decode(ByteBuffer.self) { removed.append(Array(id.readableBytesView)) }
            for id in removed {
                try await events.record(
                    .factorWithdrawn, localId: localId, details: ["kind": "passkey", "credentialId": Base64URL.encode(id)], in: schema,
                    on: connection
                )
            }
            return removed
        }
    }

    /// Whether the account has this passkey (a new-passkey notice's code is made only for one it has).
    func owns(credentialId: [UInt8], localId: String, in schema: TenantSchema) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT 1 FROM \(sql: schema.qualified(Self.table))
            WHERE credential_id = \(ByteBuffer(bytes: credentialId)) AND local_id = \(localId)
            """,
            logger: logger
        )
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// Deletes one of the account's passkeys on the caller's connection (a notice's revert link,
    /// which commits with the code's use), audited; whether it was still there.
    func remove(credentialId: [UInt8], localId: String, via: String, in schema: TenantSchema, on connection: PostgresConnection)
        async throws -> Bool
    {
        let rows = try await connection.query(
            """
            DELETE FROM \(sql: schema.qualified(Self.table))
            WHERE credential_id = \(ByteBuffer(bytes: credentialId)) AND local_id = \(localId) RETURNING 1
            """,
            logger: logger
        )
        var removed = false
        for try await _ in rows.decode(Int.self) { removed = true }
        if removed {
            try await events.record(
                .factorWithdrawn, localId: localId,
                details: ["kind": "passkey", "credentialId": Base64URL.encode(credentialId), "via": via], in: schema, on: connection
            )
        }
        return removed
    }

    /// Every passkey of the account (`since`: those added after it), on the caller's connection:
    /// an address proof's removal of what an unproven holder planted (AddressProof).
    func removeAll(of localId: String, since: Date? = nil, in schema: TenantSchema, on connection: PostgresConnection) async throws -> Int {
        let table = schema.qualified(Self.table)
        let rows: PostgresRowSequence
        if let since {
            rows = try await connection.query(
                "DELETE FROM \(sql: table) WHERE local_id = \(localId) AND created_at >= \(since) RETURNING 1", logger: logger
            )
        } else {
            rows = try await connection.query("DELETE FROM \(sql: table) WHERE local_id = \(localId) RETURNING 1", logger: logger)
        }
        var count = 0
        for try await _ in rows.decode(Int.self) { count += 1 }
        return count
    }

    struct ListedRow: StatementRow {
        let localId: String
        let credentialId: [UInt8]
        let name: String

        init(_ columns: RowColumns) throws {
            localId = try columns("local_id")
            credentialId = Array(try columns("credential_id", as: ByteBuffer.self).readableBytesView)
            name = try columns("name")
        }
    }

    func list(localIds: [String], in schema: TenantSchema) async throws -> [ListedRow] {
        let rows = try await client.query(
            """
            SELECT local_id, credential_id, name FROM \(sql: schema.qualified(Self.table))
            WHERE local_id = ANY(\(localIds)) ORDER BY created_at, credential_id
            """,
            logger: logger
        )
        var listed: [ListedRow] = []
        for try await row in rows.decode(rows: ListedRow.self) { listed.append(row) }
        return listed
    }
}
