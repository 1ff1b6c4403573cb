import Contracts
import Foundation
import JSONRPC
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Sign-in sessions (refresh-token families) in each tenant's schema.
struct SessionRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Starts a family for one sign-in and records its first refresh token (by hash only).
    func startFamily(_ params: IssueSession.Params, token: RefreshToken) async throws {
        let schema = try TenantSchemaCatalog.schema(for: TenantScope(projectId: params.projectId, tenantId: params.tenantId))
        let familyID = UUID().uuidString.lowercased()
        let authTime = Date(timeIntervalSince1970: Double(params.authTime))
        let tokenHash = token.hash
        let logger = self.logger
        do {
            try await insert(
                schema: schema, familyID: familyID, params: params, authTime: authTime, tokenHash: tokenHash, logger: logger
            )
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
    /// Each step after the first runs only if the credential was usable, so a used, expired or
    /// foreign credential changes nothing.
    ///
    /// A used credential is deleted, not marked: the mark wrote a new row version (one in eight
    /// left its page, a write to both indexes), the statement costs a seventh less without it, and
    /// a used credential is kept for nothing. Rows marked `consumed_at` by earlier versions stay
    /// refused, here and in `inspect`, so old and new instances can run side by side.
    private func insert(
        schema: TenantSchema, familyID: String, params: IssueSession.Params, authTime: Date, tokenHash: Data, logger: Logger
    ) async throws {
        // Only `qualified(_:)` output is spliced into the text; every value is a bind parameter.
        let families = schema.qualified("session_families")
        let tokens = schema.qualified("refresh_tokens")
        let pending = schema.qualified("mfa_pending_credentials")
        let consume = params.consumePendingCredential != nil
        let pendingHash = params.consumePendingCredential.map { PendingCredential(value: $0).hash } ?? Data()
        let revoke = params.revokeOtherSessions == true
        let rows = try await client.query(
            cached: """
            WITH consumed AS (
                DELETE FROM \(unescaped: pending)
                WHERE \(consume) AND credential_hash = \(pendingHash) AND local_id = \(params.localId)
                  AND consumed_at IS NULL AND expires_at > now()
                RETURNING 1
            ), allowed AS (
                SELECT 1 WHERE NOT \(consume) OR EXISTS (SELECT 1 FROM consumed)
            ), revoked AS (
                UPDATE \(unescaped: families) SET revoked_at = now(), revoked_reason = 'enrollment'
                WHERE \(revoke) AND local_id = \(params.localId) AND revoked_at IS NULL AND EXISTS (SELECT 1 FROM allowed)
            ), family AS (
                INSERT INTO \(unescaped: families)
                (family_id, local_id, sign_in_provider, second_factor, second_factor_identifier, auth_time, session_claims)
                SELECT \(familyID), \(params.localId), \(params.signInProvider), \(params.secondFactor),
                       \(params.secondFactorIdentifier), \(authTime), \(Self.encode(params.sessionClaims))
                FROM allowed
                RETURNING family_id
            )
            INSERT INTO \(unescaped: tokens) (token_hash, family_id, local_id)
            SELECT \(tokenHash), family_id, \(params.localId) FROM family
            RETURNING family_id
            """,
            logger: logger
        )
        for try await _ in rows.decode(String.self) { return }
        throw PendingCredentials.invalid
    }

    /// Ends the sessions established with a second factor (decision 4); returns how many.
    func revokeFactor(_ params: RevokeFactorSessions.Params) async throws -> Int {
        let schema = try TenantSchemaCatalog.schema(for: TenantScope(projectId: params.projectId, tenantId: params.tenantId))
        let rows = try await client.query(
            """
            UPDATE \(unescaped: schema.qualified("session_families")) SET revoked_at = now(), revoked_reason = 'factor'
            WHERE local_id = \(params.localId) AND second_factor_identifier = \(params.secondFactorIdentifier)
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
        let schema = try TenantSchemaCatalog.schema(for: TenantScope(projectId: params.projectId, tenantId: params.tenantId))
        return try await AccountRows.delete(
            from: ["session_families", "mfa_pending_credentials"], in: schema, localIds: localIds, client: client, logger: logger
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
