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
        let authTime = params.authTime.date
        let tokenHash = token.hash
        let logger = self.logger
        let derived = params.consumePendingCredential != nil || params.finishesEnrollment == true
        let refusal = params.consumePendingCredential != nil ? PendingCredentials.invalid : Self.finishedEnrollment
        do {
            let started: Bool
            do {
                started = try await insert(
                    schema: schema, familyID: familyID, params: params, authTime: authTime, tokenHash: tokenHash, logger: logger
                )
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
        schema: TenantSchema, familyID: String, params: IssueSession.Params, authTime: Date, tokenHash: Data, logger: Logger
    ) async throws -> Bool {
        // Only `qualified(_:)` output is spliced into the text; every value is a bind parameter.
        let families = schema.qualified(Self.families)
        let tokens = schema.qualified(Self.tokens)
        let pending = schema.qualified(PendingCredentials.table)
        let consume = params.consumePendingCredential != nil
        let pendingHash = params.consumePendingCredential.map { PendingCredential(value: $0).hash } ?? Data()
        let revoke = params.revokeOtherSessions == true
        let rows = try await client.query(
            cached: """
                WITH consumed AS (
                    DELETE FROM \(sql: pending)
                    WHERE \(consume) AND credential_hash = \(pendingHash) AND local_id = \(params.localId)
                      AND consumed_at IS NULL AND expires_at > now()
                    RETURNING 1
                ), allowed AS (
                    SELECT 1 WHERE (NOT \(consume) OR EXISTS (SELECT 1 FROM consumed))
                      AND NOT EXISTS (SELECT 1 FROM \(sql: tokens) WHERE token_hash = \(tokenHash))
                ), revoked AS (
                    UPDATE \(sql: families) SET revoked_at = now(), revoked_reason = 'enrollment'
                    WHERE \(revoke) AND local_id = \(params.localId) AND revoked_at IS NULL AND EXISTS (SELECT 1 FROM allowed)
                ), family AS (
                    INSERT INTO \(sql: families)
                    (family_id, local_id, sign_in_provider, second_factor, second_factor_identifier, auth_time, session_claims,
                     second_factor_auth_time, enrollment_only_until, first_factor_identifier)
                    SELECT \(familyID), \(params.localId), \(params.signInProvider.rawValue), \(params.secondFactor?.rawValue),
                           \(params.secondFactorIdentifier), \(authTime), \(Self.encode(params.sessionClaims)),
                           \(params.secondFactorAuthTime?.date), \(params.enrollmentOnlyUntil?.date),
                           \(params.firstFactorIdentifier)
                    FROM allowed
                    RETURNING family_id
                )
                INSERT INTO \(sql: tokens) (token_hash, family_id, local_id)
                SELECT \(tokenHash), family_id, \(params.localId) FROM family
                RETURNING family_id
                """,
            logger: logger
        )
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    /// The sign-in a pending credential finished, for a finalize retried after its answer was lost.
    struct FinishedSignIn: StatementRow {
        let localId: String
        let signInProvider: SignInProvider
        let secondFactorIdentifier: String?
        let authTime: EpochSeconds

        init(_ columns: RowColumns) throws {
            localId = try columns("local_id")
            signInProvider = SignInProvider(rawValue: try columns("sign_in_provider"))
            secondFactorIdentifier = try columns("second_factor_identifier")
            authTime = EpochSeconds(try columns("auth_time") as Int64)
        }
    }

    /// The session a used pending credential started, found by its first refresh token (derived
    /// from the credential, `FinishingTokens`), while that token was never used, the session
    /// stands, and it is younger than `retryWindow`; otherwise `nil` (the credential is invalid).
    func finished(by tokenHash: Data, in schema: TenantSchema) async throws -> FinishedSignIn? {
        let window = Double(retryWindow.components.seconds)
        let rows = try await client.query(
            cached: """
                SELECT f.local_id, f.sign_in_provider, f.second_factor_identifier,
                       floor(extract(epoch FROM f.auth_time))::bigint AS auth_time
                FROM \(sql: schema.qualified(Self.tokens)) t
                JOIN \(sql: schema.qualified(Self.families)) f ON f.family_id = t.family_id
                WHERE t.token_hash = \(tokenHash) AND t.rotated_at IS NULL AND f.revoked_at IS NULL
                  AND f.created_at > now() - make_interval(secs => \(window))
                """,
            logger: logger
        )
        for try await finished in rows.decode(rows: FinishedSignIn.self) { return finished }
        return nil
    }

    /// Ends the sessions established with a second factor (decision 4), or begun with a first
    /// factor of its own id (a passkey); returns how many.
    func revokeFactor(_ params: RevokeFactorSessions.Params) async throws -> Int {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let identifier = params.secondFactorIdentifier
        let rows = try await client.query(
            """
            UPDATE \(sql: schema.qualified(Self.families)) SET revoked_at = now(), revoked_reason = 'factor'
            WHERE local_id = \(params.localId) AND (second_factor_identifier = \(identifier) OR first_factor_identifier = \(identifier))
              AND revoked_at IS NULL
            RETURNING family_id
            """,
            logger: logger
        )
        var count = 0
        for try await _ in rows.decode(String.self) { count += 1 }
        return count
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
