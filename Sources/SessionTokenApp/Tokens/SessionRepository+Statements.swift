import AuthVocabulary
import Contracts
import Foundation
import PostgresNIO
import TenantStore

/// The statements of ``SessionRepository``, each a type: its values, its text in a schema, its row.
extension SessionRepository {
    /// The statement of ``SessionRepository/startFamily(_:token:)``: one round trip, one commit. Uses
    /// the pending credential up, revokes the user's other sessions when asked, starts the family
    /// and records its first refresh token; each step after the first runs only if the credential
    /// was usable and the token is new. A row when the family started.
    struct StartFamily: Statement {
        typealias Row = SingleValue<String>
        let familyID: String
        let params: IssueSession.Params
        let tokenHash: Data

        func query(in schema: TenantSchema) throws -> CachedQuery {
            // Only `qualified(_:)` output is spliced into the text; every value is a bind parameter.
            let families = schema.qualified(SessionRepository.families)
            let tokens = schema.qualified(SessionRepository.tokens)
            let pending = schema.qualified(PendingCredentials.table)
            let consume = params.consumePendingCredential != nil
            let pendingHash = params.consumePendingCredential.map { PendingCredential(value: $0).hash } ?? Data()
            let revoke = params.revokeOtherSessions == true
            let authTime = params.authTime.date
            return try """
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
                       \(params.secondFactorIdentifier), \(authTime), \(SessionRepository.encode(params.sessionClaims)),
                       \(params.secondFactorAuthTime?.date), \(params.enrollmentOnlyUntil?.date),
                       \(params.firstFactorIdentifier)
                FROM allowed
                RETURNING family_id
            )
            INSERT INTO \(sql: tokens) (token_hash, family_id, local_id)
            SELECT \(tokenHash), family_id, \(params.localId) FROM family
            RETURNING family_id
            """
        }
    }

    /// The session the first refresh token `tokenHash` belongs to, while the token was never used,
    /// the session stands, and it is younger than `window` seconds.
    struct FinishedBy: Statement {
        typealias Row = FinishedSignIn
        let tokenHash: Data
        let window: Double

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            SELECT f.local_id, f.sign_in_provider, f.second_factor_identifier,
                   floor(extract(epoch FROM f.auth_time))::bigint AS auth_time
            FROM \(sql: schema.qualified(SessionRepository.tokens)) t
            JOIN \(sql: schema.qualified(SessionRepository.families)) f ON f.family_id = t.family_id
            WHERE t.token_hash = \(tokenHash) AND t.rotated_at IS NULL AND f.revoked_at IS NULL
              AND f.created_at > now() - make_interval(secs => \(window))
            """
        }
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

    /// Ends the sessions of `localId` established with the second factor `identifier`, or begun
    /// with a first factor of that id (a passkey); a row per session ended.
    struct RevokeFactor: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let localId: String
        let identifier: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(SessionRepository.families)) SET revoked_at = now(), revoked_reason = 'factor'
            WHERE local_id = \(localId) AND (second_factor_identifier = \(identifier) OR first_factor_identifier = \(identifier))
              AND revoked_at IS NULL
            RETURNING family_id
            """
        }
    }

    /// A refresh token's family, with the token's and the family's state; no row: an unknown token.
    struct FamilyOfToken: Statement {
        typealias Row = FamilyRow
        let tokenHash: Data

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            SELECT f.family_id, f.local_id, f.sign_in_provider, f.second_factor, f.second_factor_identifier,
                   floor(extract(epoch FROM f.auth_time))::bigint AS auth_time,
                   floor(extract(epoch FROM f.created_at))::bigint AS created_at,
                   t.rotated_at IS NOT NULL AS rotated, f.revoked_at IS NOT NULL AS revoked, f.session_claims, f.revoked_reason,
                   floor(extract(epoch FROM f.second_factor_auth_time))::bigint AS second_factor_auth_time,
                   floor(extract(epoch FROM f.enrollment_only_until))::bigint AS enrollment_only_until,
                   f.first_factor_identifier
            FROM \(sql: schema.qualified(SessionRepository.tokens)) t JOIN \(sql: schema.qualified(SessionRepository.families)) f ON f.family_id = t.family_id
            WHERE t.token_hash = \(tokenHash)
            """
        }
    }

    /// Marks the old token rotated and records its successor, or neither; a row when it did.
    struct RotateToken: Statement {
        typealias Row = SingleValue<String>
        let oldHash: Data
        let newHash: Data
        let familyID: String
        let localId: String

        func query(in schema: TenantSchema) throws -> CachedQuery {
            let (tokens, families) = (schema.qualified(SessionRepository.tokens), schema.qualified(SessionRepository.families))
            return try """
            WITH rotated AS (
                UPDATE \(sql: tokens) SET rotated_at = now()
                WHERE token_hash = \(oldHash) AND rotated_at IS NULL
                  AND EXISTS (SELECT 1 FROM \(sql: families) WHERE family_id = \(familyID) AND revoked_at IS NULL)
                RETURNING family_id
            )
            INSERT INTO \(sql: tokens) (token_hash, family_id, local_id)
            SELECT \(newHash), family_id, \(localId) FROM rotated
            RETURNING family_id
            """
        }
    }

    /// Revokes a family for reuse; a row the first time only.
    struct RevokeForReuse: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let familyID: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(SessionRepository.families)) SET revoked_at = now(), revoked_reason = 'reuse'
            WHERE family_id = \(familyID) AND revoked_at IS NULL RETURNING family_id
            """
        }
    }

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
}
