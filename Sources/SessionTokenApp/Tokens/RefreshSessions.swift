import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Refresh-token families: look-up with reuse detection, and rotation by compare-and-set.
struct RefreshSessions: Sendable {
    let client: Database
    let logger: Logger
    let sealKey: TokenSealKey
    /// The audit trail: a family revoked for reuse is recorded with the revocation.
    let events: SecurityEventLog

    static let invalid = RPCError(code: .invalidRefreshToken, business: IdentityToolkitError(.invalidRefreshToken))
    static let expired = RPCError(code: .invalidRefreshToken, business: IdentityToolkitError(.tokenExpired))

    /// What a live family remembers of its sign-in.
    struct Family: Sendable {
        let familyID: String
        let projectId: String
        let tenantId: String?
        let localId: String
        let signInProvider: String
        let secondFactor: FactorKind?
        let secondFactorIdentifier: String?
        let authTime: Int64
        let signedInAt: Int64
        let sessionClaims: [String: JSONValue]?
        let secondFactorAuthTime: Int64?
        let enrollmentOnlyUntil: Int64?
        let firstFactorIdentifier: String?
    }

    /// The family of a token that may still be used. A token already rotated is a reuse: the
    /// family is revoked, and every token of it stops working.
    func family(of token: RefreshToken) async throws -> Family {
        guard let scope = token.scope, let schema = try? ScopeSchema.of(scope.projectId, scope.tenantId)
        else { throw Self.invalid }
        let tokens = schema.qualified("refresh_tokens")
        let families = schema.qualified("session_families")
        let rows: CachedRows
        do {
            // Only `qualified(_:)` output is spliced into the text; every value is a bind parameter.
            rows = try await client.query(
                cached: """
                    SELECT f.family_id, f.local_id, f.sign_in_provider, f.second_factor, f.second_factor_identifier,
                           floor(extract(epoch FROM f.auth_time))::bigint, floor(extract(epoch FROM f.created_at))::bigint,
                           t.rotated_at IS NOT NULL, f.revoked_at IS NOT NULL, f.session_claims, f.revoked_reason,
                           floor(extract(epoch FROM f.second_factor_auth_time))::bigint,
                           floor(extract(epoch FROM f.enrollment_only_until))::bigint, f.first_factor_identifier
                    FROM \(sql: tokens) t JOIN \(sql: families) f ON f.family_id = t.family_id
                    WHERE t.token_hash = \(token.hash)
                    """,
                logger: logger
            )
        } catch {
            if TenantSchema.isMissing(error) { throw Self.invalid }
            throw error
        }
        for try await (
            familyID, localID, provider, secondFactor, identifier, authTime, createdAt, rotated, revoked, claims, reason, passedAt,
            enrollmentOnlyUntil, firstFactorIdentifier
        ) in rows.decode(
            (String, String, String, String?, String?, Int64, Int64, Bool, Bool, String?, String?, Int64?, Int64?, String?).self)
        {
            // A session revoked on purpose (its factor withdrawn, a new factor enrolled) is expired for
            // the client, which then signs in again; a reused token's family is simply invalid.
            if revoked { throw reason == nil || reason == "reuse" ? Self.invalid : Self.expired }
            if rotated {
                try await revoke(familyID: familyID, localId: localID, in: schema)
                logger.warning("refresh token reused; session family revoked", metadata: ["session.family": "\(familyID)"])
                throw Self.invalid
            }
            return Family(
                familyID: familyID, projectId: scope.projectId, tenantId: scope.tenantId, localId: localID,
                signInProvider: provider, secondFactor: secondFactor.flatMap(FactorKind.init(rawValue:)),
                secondFactorIdentifier: identifier,
                authTime: authTime, signedInAt: createdAt, sessionClaims: SessionRepository.decode(claims),
                secondFactorAuthTime: passedAt, enrollmentOnlyUntil: enrollmentOnlyUntil, firstFactorIdentifier: firstFactorIdentifier
            )
        }
        throw Self.invalid
    }

    /// The account's checks of a refresh, in contract order, with the account's state the gateway
    /// read: a session from before the account existed is a deleted
    /// account's whose uid was given again; then `USER_DISABLED`; then `TOKEN_EXPIRED` for a sign-in
    /// older than `validSince` or one whose second factor the account no longer has (decision 4).
    static func check(_ family: Family, against account: RefreshSession.AccountState) throws {
        guard account.localId == family.localId else { throw invalid }
        if let createdAt = account.createdAt, family.authTime < createdAt / 1000 { throw invalid }
        if account.disabled { throw RPCError(code: .invalidRefreshToken, business: IdentityToolkitError(.userDisabled)) }
        if let validSince = account.validSince, family.signedInAt < validSince { throw expired }
        if let factor = family.secondFactorIdentifier, !account.secondFactors.contains(factor) { throw expired }
        try checkEnrollmentWindow(family)
    }

    /// An enrollment-only session (MANDATORY MFA) ends with its grace period: `TOKEN_EXPIRED`, on
    /// which the SDKs sign the user out; the next sign-in is then refused until a factor exists.
    static func checkEnrollmentWindow(_ family: Family, now: Date = Date()) throws {
        if let until = family.enrollmentOnlyUntil, Int64(now.timeIntervalSince1970) >= until { throw expired }
    }

    /// Replaces `token` by a new one of the same family. The old token rotates at most once: of two
    /// concurrent rotations, one wins and the other is treated as reuse (the family is revoked).
    func rotate(_ token: RefreshToken, family: Family) async throws -> RefreshToken {
        let schema = try ScopeSchema.of(family.projectId, family.tenantId)
        let tokens = schema.qualified("refresh_tokens")
        let families = schema.qualified("session_families")
        let next = RefreshToken(
            value: try SealedRefreshToken(projectId: family.projectId, tenantId: family.tenantId, localId: family.localId)
                .seal(with: sealKey)
        )
        let (oldHash, newHash) = (token.hash, next.hash)
        let logger = self.logger
        // One statement: the old token is marked rotated and its successor recorded, or neither.
        let rows = try await client.query(
            cached: """
                WITH rotated AS (
                    UPDATE \(sql: tokens) SET rotated_at = now()
                    WHERE token_hash = \(oldHash) AND rotated_at IS NULL
                      AND EXISTS (SELECT 1 FROM \(sql: families) WHERE family_id = \(family.familyID) AND revoked_at IS NULL)
                    RETURNING family_id
                )
                INSERT INTO \(sql: tokens) (token_hash, family_id, local_id)
                SELECT \(newHash), family_id, \(family.localId) FROM rotated
                RETURNING family_id
                """,
            logger: logger
        )
        var rotated = false
        for try await _ in rows.decode(String.self) { rotated = true }
        guard rotated else {
            try await revoke(familyID: family.familyID, localId: family.localId, in: schema)
            throw Self.invalid
        }
        return next
    }

    /// Revokes a family whose token was used twice, and records it the first time, in one transaction.
    func revoke(familyID: String, localId: String, in schema: TenantSchema) async throws {
        let families = schema.qualified("session_families")
        let (events, logger) = (self.events, self.logger)
        try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                UPDATE \(sql: families) SET revoked_at = now(), revoked_reason = 'reuse'
                WHERE family_id = \(familyID) AND revoked_at IS NULL RETURNING family_id
                """,
                logger: logger
            )
            for try await _ in rows.decode(String.self) {
                try await events.record(.tokenFamilyRevoked, localId: localId, details: ["reason": "reuse"], in: schema, on: connection)
            }
        }
    }
}
