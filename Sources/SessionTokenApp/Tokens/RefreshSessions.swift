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
    let sessions: SessionRepository
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
        let signInProvider: SignInProvider
        let secondFactor: FactorKind?
        let secondFactorIdentifier: String?
        let authTime: EpochSeconds
        let signedInAt: EpochSeconds
        let sessionClaims: [String: JSONValue]?
        let secondFactorAuthTime: EpochSeconds?
        let enrollmentOnlyUntil: EpochSeconds?
        let firstFactorIdentifier: String?
    }

    /// The family of a token that may still be used. A token already rotated is a reuse: the
    /// family is revoked, and every token of it stops working.
    func family(of token: RefreshToken) async throws -> Family {
        guard let scope = token.scope, let schema = try? ScopeSchema.of(scope.projectId, scope.tenantId)
        else { throw Self.invalid }
        let found: SessionRepository.FamilyRow?
        do {
            found = try await sessions.family(ofTokenHash: token.hash, in: schema)
        } catch {
            if TenantSchema.isMissing(error) { throw Self.invalid }
            throw error
        }
        guard let row = found else { throw Self.invalid }
        // A session revoked on purpose (its factor withdrawn, a new factor enrolled) is expired for
        // the client, which then signs in again; a reused token's family is simply invalid.
        if row.revoked { throw row.revokedReason == nil || row.revokedReason == "reuse" ? Self.invalid : Self.expired }
        if row.rotated {
            try await revoke(familyID: row.familyID, localId: row.localId, in: schema)
            logger.warning("refresh token reused; session family revoked", metadata: ["session.family": "\(row.familyID)"])
            throw Self.invalid
        }
        return Family(
            familyID: row.familyID, projectId: scope.projectId, tenantId: scope.tenantId, localId: row.localId,
            signInProvider: row.signInProvider, secondFactor: row.secondFactor.flatMap(FactorKind.init(rawValue:)),
            secondFactorIdentifier: row.secondFactorIdentifier, authTime: row.authTime, signedInAt: row.createdAt,
            sessionClaims: SessionRepository.decode(row.sessionClaims), secondFactorAuthTime: row.secondFactorAuthTime,
            enrollmentOnlyUntil: row.enrollmentOnlyUntil, firstFactorIdentifier: row.firstFactorIdentifier
        )
    }

    /// The account's checks of a refresh, in contract order, with the account's state the gateway
    /// read: a session from before the account existed is a deleted
    /// account's whose uid was given again; then `USER_DISABLED`; then `TOKEN_EXPIRED` for a sign-in
    /// older than `validSince` or one whose second factor the account no longer has (decision 4).
    static func check(_ family: Family, against account: RefreshSession.AccountState) throws {
        guard account.localId == family.localId else { throw invalid }
        if let createdAt = account.createdAt, family.authTime < EpochSeconds(milliseconds: createdAt) { throw invalid }
        if account.disabled { throw RPCError(code: .invalidRefreshToken, business: IdentityToolkitError(.userDisabled)) }
        if let validSince = account.validSince, family.signedInAt < validSince { throw expired }
        if let factor = family.secondFactorIdentifier, !account.secondFactors.contains(factor) { throw expired }
        try checkEnrollmentWindow(family)
    }

    /// An enrollment-only session (MANDATORY MFA) ends with its grace period: `TOKEN_EXPIRED`, on
    /// which the SDKs sign the user out; the next sign-in is then refused until a factor exists.
    static func checkEnrollmentWindow(_ family: Family, now: Date = Date()) throws {
        if let until = family.enrollmentOnlyUntil, EpochSeconds(now) >= until { throw expired }
    }

    /// Replaces `token` by a new one of the same family. The old token rotates at most once: of two
    /// concurrent rotations, one wins and the other is treated as reuse (the family is revoked).
    func rotate(_ token: RefreshToken, family: Family) async throws -> RefreshToken {
        let schema = try ScopeSchema.of(family.projectId, family.tenantId)
        let next = RefreshToken(
            value: try SealedRefreshToken(projectId: family.projectId, tenantId: family.tenantId, localId: family.localId)
                .seal(with: sealKey)
        )
        let rotated = try await sessions.rotate(
            from: token.hash, to: next.hash, familyID: family.familyID, localId: family.localId, in: schema)
        guard rotated else {
            try await revoke(familyID: family.familyID, localId: family.localId, in: schema)
            throw Self.invalid
        }
        return next
    }

    /// Revokes a family whose token was used twice, and records it the first time, in one transaction.
    func revoke(familyID: String, localId: String, in schema: TenantSchema) async throws {
        let events = self.events
        try await sessions.revokeForReuse(familyID: familyID, in: schema) { connection in
            try await events.record(.tokenFamilyRevoked, localId: localId, details: ["reason": "reuse"], in: schema, on: connection)
        }
    }
}
