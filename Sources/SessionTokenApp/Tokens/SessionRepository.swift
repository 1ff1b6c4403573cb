import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Sign-in sessions (refresh-token families) in each tenant's schema.
struct SessionRepository: Sendable {
    static let families: SQLText = "session_families"
    static let tokens: SQLText = "refresh_tokens"
    let client: Database
    let logger: Logger
    /// How long after a pending credential was used its finalize may be retried (its lifetime).
    let retryWindow: Duration

    static let finishedEnrollment = RPCError(code: .finishedEnrollment, business: IdentityToolkitError(.invalidSessionInfo))

    /// Starts a family for one sign-in and records its first refresh token (by hash only). Returns
    /// the `auth_time` (seconds) of the session the token belongs to: the new one, or, for an exact
    /// retry of a finalize (its token derived, FinishingTokens), the one its first attempt started;
    /// such a retry starts, revokes and uses up nothing (decision 22).
    func startFamily(_ params: IssueSession.Params, token: RefreshToken) async throws -> EpochSeconds {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let familyID = UUID().uuidString.lowercased()
        let tokenHash = token.hash
        let logger = self.logger
        let derived = params.consumePendingCredential != nil || params.finishesEnrollment == true
        let refusal = params.consumePendingCredential != nil ? PendingCredentials.invalid : Self.finishedEnrollment
        do {
            let started: Bool
            do {
                started = try await insert(schema: schema, familyID: familyID, params: params, tokenHash: tokenHash, logger: logger)
            } catch  where derived && UniqueViolation.matches(error) {
                // A parallel exact retry started the session first.
                started = false
            }
            if started { return params.authTime }
            if derived, let earlier = try await finished(by: tokenHash, in: schema),
                earlier.localId == params.localId, earlier.secondFactorIdentifier == params.secondFactorIdentifier
            {
                return earlier.authTime
            }
            throw refusal
        } catch let error as RPCError {
            throw error
        } catch {
            // A scope nobody provisioned here: say so instead of failing as an internal error.
            if TenantSchema.isMissing(error) { throw RPCError(code: .tenantSchemaMissing, message: "Unknown project or tenant") }
            throw error
        }
    }

    /// One statement (one round trip, one commit): uses the pending credential up, revokes the
    /// user's other sessions when asked, starts the family and records its first refresh token.
    /// Each step after the first runs only if the credential was usable and the token is new (a
    /// derived token already there is an exact retry's), so a used, expired or foreign credential
    /// or a retry changes nothing.
    ///
    /// A used credential is deleted, not marked: the mark wrote a new row version (one in eight
    /// left its page, a write to both indexes), the statement costs a seventh less without it, and
    /// a used credential is kept for nothing. Rows marked `consumed_at` by earlier versions stay
    /// refused, here and in `inspect`, so old and new instances can run side by side.
    private func insert(
        schema: TenantSchema, familyID: String, params: IssueSession.Params, tokenHash: Data, logger: Logger
    ) async throws -> Bool {
        try await client.first(StartFamily(familyID: familyID, params: params, tokenHash: tokenHash), in: schema, logger: logger) != nil
    }

    /// The session a used pending credential started, found by its first refresh token (derived
    /// from the credential, `FinishingTokens`), while that token was never used, the session
    /// stands, and it is younger than `retryWindow`; otherwise `nil` (the credential is invalid).
    func finished(by tokenHash: Data, in schema: TenantSchema) async throws -> FinishedSignIn? {
        try await client.first(
            FinishedBy(tokenHash: tokenHash, window: Double(retryWindow.components.seconds)), in: schema, logger: logger)
    }

    /// Ends the sessions established with a second factor (decision 4), or begun with a first
    /// factor of its own id (a passkey); returns how many.
    func revokeFactor(_ params: RevokeFactorSessions.Params) async throws -> Int {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        return try await client.run(
            RevokeFactor(localId: params.localId, identifier: params.secondFactorIdentifier), in: schema, logger: logger
        ).count
    }

    /// Deletes the sessions (their refresh tokens go with them) and pending sign-ins of deleted
    /// accounts, in one statement; how many rows went.
    func forget(_ params: AccountsToForget) async throws -> Int {
        let localIds = try params.selection()
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        return try await AccountRows.delete(
            from: [Self.families, PendingCredentials.table], in: schema, localIds: localIds, client: client, logger: logger
        )
    }

    /// Session claims as JSON text; `nil` when there are none.
    static func encode(_ claims: [String: JSONValue]?) -> String? {
        guard let claims, !claims.isEmpty, let data = try? JSONCoding.encode(JSONValue.object(claims)) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String?) -> [String: JSONValue]? {
        guard let text, case .object(let members)? = try? JSONCoding.parse(Array(text.utf8)) else { return nil }
        return members
    }
}

extension SessionRepository {
    /// Every refresh adds a token and keeps the one it replaced, so that a replaced token coming
    /// back revokes its family (contract decision 2). A replaced token is kept `retention` for that;
    /// after it, the token is unknown: still refused (`INVALID_REFRESH_TOKEN`), without revoking
    /// the family. Without a limit a session refreshed hourly adds 8,760 rows a year.
    static func rotatedTokens(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "rotated refresh tokens", table: Self.tokens, key: "token_hash", column: "rotated_at", retention: retention,
            indexed: false
        )
    }
}

extension SessionRepository {
    /// A revoked session is kept `retention` so that its tokens answer why (`TOKEN_EXPIRED` after a
    /// withdrawn factor, `INVALID_REFRESH_TOKEN` after reuse); then it goes with its tokens
    /// (`ON DELETE CASCADE`), and they are simply unknown (`INVALID_REFRESH_TOKEN`). Runs after the
    /// rotated tokens' rule, so the cascade finds few.
    static func revokedSessions(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "revoked sessions", table: Self.families, key: "family_id", column: "revoked_at", retention: retention,
            indexed: false
        )
    }
}
