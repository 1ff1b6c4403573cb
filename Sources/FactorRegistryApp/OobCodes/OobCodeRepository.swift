import Contracts
import Crypto
import Foundation
import Logging
import PostgresNIO
import TenantStore

/// Out-of-band codes in each tenant's schema, stored as SHA-256 hashes: a stolen table lets nobody
/// verify an email. The codes carry 320 random bits, so an unsalted hash is enough.
struct OobCodeRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// As a `ByteBuffer`, which PostgresNIO binds as `bytea`.
    static func hash(_ code: String) -> ByteBuffer { ByteBuffer(bytes: SHA256.hash(data: Data(code.utf8))) }

    func insert(in schema: TenantSchema, code: String, requestType: String, localId: String, email: String, lifetime: Duration)
        async throws
    {
        let table = schema.qualified("oob_codes")
        let seconds = Double(lifetime.components.seconds)
        try await client.query(
            """
            INSERT INTO \(unescaped: table) (code_hash, request_type, local_id, email, expires_at)
            VALUES (\(Self.hash(code)), \(requestType), \(localId), \(email), now() + make_interval(secs => \(seconds)))
            """,
            logger: logger
        )
    }

    enum Outcome: Sendable {
        case applied(requestType: String, localId: String)
        case unknown
        case expired
        /// The account's email is no longer the one the code was sent to (or the account is gone).
        case stale
    }

    /// An expired code answers `EXPIRED_OOB_CODE`; it is kept `retention` past its expiry for that
    /// (someone opening a days-old email), then it is unknown (`INVALID_OOB_CODE`). A used code is
    /// deleted when it is used.
    static func expiredCodes(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "expired out-of-band codes", table: "oob_codes", key: "code_hash", column: "expires_at", retention: retention,
            indexed: true
        )
    }

    /// Uses a `VERIFY_EMAIL` code: deletes it and marks the email verified, in one statement, so two
    /// concurrent uses cannot both succeed.
    func applyVerifyEmail(in schema: TenantSchema, code: String) async throws -> Outcome {
        let table = schema.qualified("oob_codes")
        let accounts = schema.qualified("accounts")
        let rows = try await client.query(
            """
            WITH used AS (
                DELETE FROM \(unescaped: table) WHERE code_hash = \(Self.hash(code))
                RETURNING request_type, local_id, email, expires_at > now() AS live
            ), verified AS (
                UPDATE \(unescaped: accounts) a SET email_verified = true FROM used
                WHERE used.live AND used.request_type = 'VERIFY_EMAIL' AND a.local_id = used.local_id
                  AND a.email_normalized = lower(used.email)
                RETURNING a.local_id
            )
            SELECT used.request_type, used.local_id, used.live, (SELECT count(*) FROM verified)
            FROM used
            """,
            logger: logger
        )
        for try await (requestType, localId, live, verified) in rows.decode((String, String, Bool, Int64).self) {
            if !live { return .expired }
            return verified > 0 ? .applied(requestType: requestType, localId: localId) : .stale
        }
        return .unknown
    }
}
