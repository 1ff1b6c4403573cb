import AuthVocabulary
import Contracts
import Crypto
import Foundation
import JSONRPC
import Logging
import PostgresNIO
import TenantStore

/// Out-of-band codes in each tenant's schema, stored as SHA-256 hashes: a stolen table lets nobody
/// use a link. The codes carry 320 random bits, so an unsalted hash is enough.
struct OOBCodeRepository: Sendable {
    let client: Database
    let logger: Logger

    static let table: SQLText = "oob_codes"

    /// As a `ByteBuffer`, which PostgresNIO binds as `bytea`.
    static func hash(_ code: String) -> ByteBuffer { ByteBuffer(bytes: SHA256.hash(data: Data(code.utf8))) }

    /// A code as stored: what it is for.
    struct Stored: Sendable {
        let requestType: OOBRequestType
        let localId: String?
        let email: String
        let newEmail: String?
        let enrollmentId: String?
        let phoneNumber: String?
        let live: Bool
        /// When the code was made: for `RECOVER_EMAIL`, when the address changed.
        let createdAt: Date
        /// Whether the code's address had been proved when it was made (`VERIFY_AND_CHANGE_EMAIL`,
        /// `RECOVER_EMAIL`); `nil` when not known.
        let emailProved: Bool?
    }

    func insert(
        in schema: TenantSchema, code: String, requestType: OOBRequestType, localId: String?, email: String, newEmail: String? = nil,
        enrollmentId: String? = nil, phoneNumber: String? = nil, emailProved: Bool? = nil, lifetime: Duration
    ) async throws {
        let inserted = InsertCode(
            codeHash: Self.hash(code), requestType: requestType, localId: localId, email: email, newEmail: newEmail,
            enrollmentId: enrollmentId, phoneNumber: phoneNumber, emailProved: emailProved, seconds: Double(lifetime.components.seconds))
        try await client.run(inserted, in: schema, logger: logger)
    }

    /// An expired code answers `EXPIRED_OOB_CODE`; it is kept `retention` past its expiry for that
    /// (someone opening a days-old email), then it is unknown (`INVALID_OOB_CODE`). A used code is
    /// deleted when it is used.
    static func expiredCodes(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "expired out-of-band codes", table: Self.table, key: "code_hash", column: "expires_at", retention: retention,
            indexed: true
        )
    }

    /// The code, without using it; `nil` when unknown.
    func find(in schema: TenantSchema, code: String) async throws -> Stored? {
        try await select(in: schema, code: code, lock: false, on: nil)
    }

    /// What using a code found.
    enum Use<Outcome: Sendable>: Sendable {
        case used(Stored, Outcome)
        case unknown
        case expired
        /// Not one of the types this caller may use; left as it was.
        case otherType
    }

    /// Uses a code of one of `types` in one transaction: the row is locked, `perform` does what the
    /// code is for on the same connection, and the code is deleted with it. `perform` throwing
    /// rolls everything back (the code stays usable). An expired code is left for the sweep.
    func use<Outcome: Sendable>(
        in schema: TenantSchema, code: String, types: Set<OOBRequestType>,
        _ perform: @Sendable @escaping (Stored, PostgresConnection) async throws -> Outcome
    ) async throws -> Use<Outcome> {
        let logger = self.logger
        do {
            return try await client.withTransaction(logger: logger) { connection in
                guard let stored = try await self.select(in: schema, code: code, lock: true, on: connection) else { return .unknown }
                guard types.contains(stored.requestType) else { return .otherType }
                guard stored.live else { return .expired }
                try await connection.run(DeleteCode(codeHash: Self.hash(code)), in: schema, logger: logger)
                return .used(stored, try await perform(stored, connection))
            }
        } catch let error as TransactionError {
            // A refusal of `perform` (rolled back, the code kept) is the caller's answer, not a fault.
            if let refusal = error.closureError as? RPCError, error.rollbackError == nil { throw refusal }
            throw error
        }
    }

    private func select(in schema: TenantSchema, code: String, lock: Bool, on connection: PostgresConnection?) async throws -> Stored? {
        let read = ReadCode(codeHash: Self.hash(code), lock: lock)
        let row =
            if let connection {
                try await connection.first(read, in: schema, logger: logger)
            } else {
                try await client.first(read, in: schema, logger: logger)
            }
        return row?.stored
    }
}

extension OOBCodeRepository {
    /// Removes every outstanding code of the account, in the transaction that proves or recovers
    /// its address (issue 56, F-1): a code someone else asked for while the address was unproven (an
    /// email change to their own address, say) must not outlive the owner's proof. Returns how many.
    func removeAll(of localId: String, in schema: TenantSchema, on connection: PostgresConnection) async throws -> Int {
        try await connection.run(DeleteCodesOf(localId: localId), in: schema, logger: logger).count
    }
}
