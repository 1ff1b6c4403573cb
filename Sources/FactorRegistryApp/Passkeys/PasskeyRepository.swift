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
        let (events, logger) = (self.events, self.logger)
        return try await client.withTransaction(logger: logger) { connection -> AddOutcome in
            // The lock first, the count after it in a statement of its own: a count read in the
            // locking statement would see the snapshot from before the wait, without the passkey the
            // enrollment that held the lock just added.
            guard try await AccountRepository.lock(localId, in: schema, on: connection, logger: logger) else { return .accountMissing }
            let count = try await connection.first(CountPasskeys(localId: localId), in: schema, logger: logger)?.value ?? 0
            guard count < Int64(maximum) else { return .overLimit }
            do {
                try await connection.run(InsertPasskey(credential: credential, localId: localId), in: schema, logger: logger)
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
        try await client.first(FindPasskey(credentialId: credentialId), in: schema, logger: logger)
    }

    enum UseOutcome: Sendable, Equatable {
        case recorded
        case moved
        case gone
    }

    /// Sets the counter only from the value the sign-in was checked against.
    func recordUse(credentialId: [UInt8], from previous: Int64, to next: Int64, in schema: TenantSchema) async throws -> UseOutcome {
        let recorded = RecordUse(credentialId: credentialId, previous: previous, next: next)
        guard let counts = try await client.first(recorded, in: schema, logger: logger) else { return .gone }
        return counts.found == 0 ? .gone : counts.moved == 1 ? .recorded : .moved
    }

    /// Deletes the account's passkeys among `credentialIds`, each audited; returns those that went.
    func remove(credentialIds: [[UInt8]], localId: String, in schema: TenantSchema) async throws -> [[UInt8]] {
        let hex = credentialIds.map { $0.map { String(format: "%02x", $0) }.joined() }
        let (events, logger) = (self.events, self.logger)
        return try await client.withTransaction(logger: logger) { connection in
            let removed = try await connection.run(RemovePasskeys(localId: localId, hexCredentialIds: hex), in: schema, logger: logger)
                .map { Array($0.value.readableBytesView) }
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
        try await client.first(OwnsPasskey(credentialId: credentialId, localId: localId), in: schema, logger: logger) != nil
    }

    /// Deletes one of the account's passkeys on the caller's connection (a notice's revert link,
    /// which commits with the code's use), audited; whether it was still there.
    func remove(credentialId: [UInt8], localId: String, via: String, in schema: TenantSchema, on connection: PostgresConnection)
        async throws -> Bool
    {
        let removed =
            try await connection.first(RemovePasskey(credentialId: credentialId, localId: localId), in: schema, logger: logger) != nil
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
        try await connection.run(RemoveAllPasskeys(localId: localId, since: since), in: schema, logger: logger).count
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
        try await client.run(ListPasskeys(localIds: localIds), in: schema, logger: logger)
    }
}
