import TenantStore

/// What challenge-issuer deletes, and when (docs/architecture.md, "Retention").
enum ChallengeRetention {
    /// An expired verification session (SMS, TOTP enrollment) answers `SESSION_EXPIRED`; it is kept
    /// `retention` past its expiry for that, then it is unknown (`INVALID_SESSION_INFO`). A used
    /// session answers like an unknown one; it is deleted when used, or, when a flow that can be
    /// retried used it (`consumed_by`), kept until this rule removes it.
    static func expiredSessions(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "expired verification sessions", table: "verification_sessions", key: "session_id", column: "expires_at",
            retention: retention, indexed: true
        )
    }

    /// An expired passkey challenge answers `PASSKEY_CHALLENGE_TIMEOUT` for `retention`, then it is unknown.
    static func expiredPasskeyChallenges(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "expired passkey challenges", table: "passkey_challenges", key: "challenge_hash", column: "expires_at",
            retention: retention, indexed: true
        )
    }

    /// An expired or used iOS receipt is refused like an unknown one, so it goes at expiry.
    static let expiredReceipts = RetentionRule(
        "expired iOS receipts", table: "ios_receipts", key: "receipt_hash", column: "expires_at", retention: .zero, indexed: true
    )

    /// The SMS defence needs the last hour of single sends (kept a day, for the completion ratio of
    /// codes verified late) and the days of this month and the week before (kept 90 days).
    static let smsSends = RetentionRule(
        "SMS sends", table: "sms_sends", key: "id", column: "sent_at", retention: .seconds(24 * 3600), indexed: true
    )
    static let smsDays = RetentionRule(
        "SMS daily sums", table: "sms_daily", key: "day", column: "day", retention: .seconds(90 * 24 * 3600), indexed: true
    )

    /// What the development sink kept for the emulator's helper routes (development mode only):
    /// past `retention` no code in it still works, if `retention` is at least the longest code
    /// lifetime (an out-of-band code's three days by default).
    static func developmentOutbox(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "development outbox messages", table: "development_outbox", key: "id", column: "created_at", retention: retention,
            indexed: false
        )
    }
}
