import TenantStore

/// What session-token deletes, and when (docs/architecture.md, "Retention").
enum SessionRetention {
    /// Expired pending credentials: an expired credential is refused like an unknown one, so it
    /// can go at once. A used one is deleted when it is used; one never used (a sign-in abandoned
    /// at its second step) would otherwise stay for good. Rows that earlier versions marked used
    /// expire the same way.
    static let pendingCredentials = RetentionRule(
        "expired pending credentials", table: "mfa_pending_credentials", key: "credential_hash", column: "expires_at",
        retention: .zero, indexed: true
    )

    /// Every refresh adds a token and keeps the one it replaced, so that a replaced token coming
    /// back revokes its family (contract decision 2). A replaced token is kept `retention` for that;
    /// after it, the token is unknown: still refused (`INVALID_REFRESH_TOKEN`), without revoking
    /// the family. Without a limit a session refreshed hourly adds 8,760 rows a year.
    static func rotatedTokens(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "rotated refresh tokens", table: "refresh_tokens", key: "token_hash", column: "rotated_at", retention: retention,
            indexed: false
        )
    }

    /// A revoked session is kept `retention` so that its tokens answer why (`TOKEN_EXPIRED` after a
    /// withdrawn factor, `INVALID_REFRESH_TOKEN` after reuse); then it goes with its tokens
    /// (`ON DELETE CASCADE`), and they are simply unknown (`INVALID_REFRESH_TOKEN`). Runs after the
    /// rotated tokens' rule, so the cascade finds few.
    static func revokedSessions(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "revoked sessions", table: "session_families", key: "family_id", column: "revoked_at", retention: retention,
            indexed: false
        )
    }
}
