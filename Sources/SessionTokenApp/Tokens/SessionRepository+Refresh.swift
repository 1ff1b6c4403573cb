import AuthVocabulary
import Foundation
import Logging
import PostgresNIO
import TenantStore

/// The statements of a refresh (``RefreshSessions``): a token's family, its rotation by
/// compare-and-set, and the revocation of a family whose token came back.
extension SessionRepository {
    /// The family of the token with `tokenHash`, with whether the token was rotated; `nil`: unknown.
    func family(ofTokenHash tokenHash: Data, in schema: TenantSchema) async throws -> FamilyRow? {
        try await client.first(FamilyOfToken(tokenHash: tokenHash), in: schema, logger: logger)
    }

    /// Marks the old token rotated and records its successor, in one statement, or neither: `false`
    /// when the old token was rotated already or its family revoked.
    func rotate(from oldHash: Data, to newHash: Data, familyID: String, localId: String, in schema: TenantSchema) async throws -> Bool {
        try await client.first(
            RotateToken(oldHash: oldHash, newHash: newHash, familyID: familyID, localId: localId), in: schema, logger: logger) != nil
    }

    /// Revokes a family for reuse, and runs `record` in the same transaction the first time only.
    func revokeForReuse(
        familyID: String, in schema: TenantSchema, record: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws {
        let logger = self.logger
        try await client.withTransaction(logger: logger) { connection in
            if try await connection.first(RevokeForReuse(familyID: familyID), in: schema, logger: logger) != nil {
                try await record(connection)
            }
        }
    }
}
