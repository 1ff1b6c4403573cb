import AuthVocabulary
import Foundation
import Logging
import PostgresNIO
import TenantStore

/// The statements of a refresh (``RefreshSessions``): a token's family, its rotation by
/// compare-and-set, and the revocation of a family whose token came back.
extension SessionRepository {
    /// A refresh token's family as its look-up reads it, with the token's and the family's state.
    struct FamilyRow: StatementRow {
        let familyID: String
        let localId: String
        let signInProvider: SignInProvider
        let secondFactor: String?
        let secondFactorIdentifier: String?
        let authTime: EpochSeconds
        let createdAt: EpochSeconds
        let rotated: Bool
        let revoked: Bool
        let sessionClaims: String?
        let revokedReason: String?
        let secondFactorAuthTime: EpochSeconds?
        let enrollmentOnlyUntil: EpochSeconds?
        let firstFactorIdentifier: String?

        init(_ columns: RowColumns) throws {
            familyID = try columns("family_id")
            localId = try columns("local_id")
            signInProvider = SignInProvider(rawValue: try columns("sign_in_provider"))
            secondFactor = try columns("second_factor")
            secondFactorIdentifier = try columns("second_factor_identifier")
            authTime = EpochSeconds(try columns("auth_time") as Int64)
            createdAt = EpochSeconds(try columns("created_at") as Int64)
            rotated = try columns("rotated")
            revoked = try columns("revoked")
            sessionClaims = try columns("session_claims")
            revokedReason = try columns("revoked_reason")
            secondFactorAuthTime = (try columns("second_factor_auth_time") as Int64?).map(EpochSeconds.init(rawValue:))
            enrollmentOnlyUntil = (try columns("enrollment_only_until") as Int64?).map(EpochSeconds.init(rawValue:))
            firstFactorIdentifier = try columns("first_factor_identifier")
        }
    }

    /// The family of the token with `tokenHash`, with whether the token was rotated; `nil`: unknown.
    func family(ofTokenHash tokenHash: Data, in schema: TenantSchema) async throws -> FamilyRow? {
        // Only `qualified(_:)` output is spliced into the text; every value is a bind parameter.
        let rows = try await client.query(
            cached: """
                SELECT f.family_id, f.local_id, f.sign_in_provider, f.second_factor, f.second_factor_identifier,
                       floor(extract(epoch FROM f.auth_time))::bigint AS auth_time,
                       floor(extract(epoch FROM f.created_at))::bigint AS created_at,
                       t.rotated_at IS NOT NULL AS rotated, f.revoked_at IS NOT NULL AS revoked, f.session_claims, f.revoked_reason,
                       floor(extract(epoch FROM f.second_factor_auth_time))::bigint AS second_factor_auth_time,
                       floor(extract(epoch FROM f.enrollment_only_until))::bigint AS enrollment_only_until,
                       f.first_factor_identifier
                FROM \(sql: schema.qualified(Self.tokens)) t JOIN \(sql: schema.qualified(Self.families)) f ON f.family_id = t.family_id
                WHERE t.token_hash = \(tokenHash)
                """,
            logger: logger
        )
        for try await row in rows.decode(rows: FamilyRow.self) { return row }
        return nil
    }

    /// Marks the old token rotated and records its successor, in one statement, or neither: `false`
    /// when the old token was rotated already or its family revoked.
    func rotate(from oldHash: Data, to newHash: Data, familyID: String, localId: String, in schema: TenantSchema) async throws -> Bool {
        let (tokens, families) = (schema.qualified(Self.tokens), schema.qualified(Self.families))
        let rows = try await client.query(
            cached: """
                WITH rotated AS (
                    UPDATE \(sql: tokens) SET rotated_at = now()
                    WHERE token_hash = \(oldHash) AND rotated_at IS NULL
                      AND EXISTS (SELECT 1 FROM \(sql: families) WHERE family_id = \(familyID) AND revoked_at IS NULL)
                    RETURNING family_id
                )
                INSERT INTO \(sql: tokens) (token_hash, family_id, local_id)
                SELECT \(newHash), family_id, \(localId) FROM rotated
                RETURNING family_id
                """,
            logger: logger
        )
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    /// Revokes a family for reuse, and runs `record` in the same transaction the first time only.
    func revokeForReuse(
        familyID: String, in schema: TenantSchema, record: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws {
        let logger = self.logger
        try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                UPDATE \(sql: schema.qualified(Self.families)) SET revoked_at = now(), revoked_reason = 'reuse'
                WHERE family_id = \(familyID) AND revoked_at IS NULL RETURNING family_id
                """,
                logger: logger
            )
            for try await _ in rows.decode(String.self) { try await record(connection) }
        }
    }
}
