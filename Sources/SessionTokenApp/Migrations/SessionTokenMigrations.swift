import ServiceKit
import TenantStore

/// session-token's schema history, oldest first. Append only.
enum SessionTokenMigrations {
    /// Tables of every tenant schema.
    static let tenant: [TenantMigration] = [
        // Refresh tokens are stored only as hashes; a family is one sign-in's chain of rotations.
        TenantMigration(
            "CreateRefreshTokensTable",
            [
                """
                CREATE TABLE refresh_tokens (
                    token_hash bytea PRIMARY KEY,
                    family_id text NOT NULL,
                    local_id text NOT NULL,
                    rotated_at timestamptz,
                    revoked_at timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id)",
                "CREATE INDEX refresh_tokens_user ON refresh_tokens (local_id)",
            ]
        ),
        // One row per sign-in: what every ID token minted from its refresh tokens must say again.
        TenantMigration(
            "CreateSessionFamiliesTable",
            [
                """
                CREATE TABLE session_families (
                    family_id text PRIMARY KEY,
                    local_id text NOT NULL,
                    sign_in_provider text NOT NULL,
                    second_factor text,
                    second_factor_identifier text,
                    auth_time timestamptz NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    revoked_at timestamptz
                )
                """,
                "CREATE INDEX session_families_user ON session_families (local_id)",
                """
                ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_family
                FOREIGN KEY (family_id) REFERENCES session_families (family_id) ON DELETE CASCADE
                """,
            ]
        ),
        // A custom token's `claims`, kept for the life of the sign-in (JSON object as text).
        TenantMigration("AddSessionClaimsToSessionFamilies", ["ALTER TABLE session_families ADD COLUMN session_claims text"]),
        // First-factor sign-ins waiting for their second factor: the credential only as SHA-256.
        TenantMigration(
            "CreateMfaPendingCredentialsTable",
            [
                """
                CREATE TABLE mfa_pending_credentials (
                    credential_hash bytea PRIMARY KEY,
                    local_id text NOT NULL,
                    sign_in_provider text NOT NULL,
                    expires_at timestamptz NOT NULL,
                    consumed_at timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX mfa_pending_credentials_expiry ON mfa_pending_credentials (expires_at)",
                "CREATE INDEX session_families_factor ON session_families (local_id, second_factor_identifier)",
            ]
        ),
        // Why a family ended: `reuse` (a rotated token came back: INVALID_REFRESH_TOKEN) or a
        // revocation (`factor`, `enrollment`: TOKEN_EXPIRED, so clients re-authenticate).
        TenantMigration("AddRevokedReasonToSessionFamilies", ["ALTER TABLE session_families ADD COLUMN revoked_reason text"]),
        // Indexes no statement reads, each a write on every sign-in or refresh: a user's families
        // are found through session_families_factor, whose first column is the user; refresh tokens
        // are never looked up by user.
        TenantMigration(
            "DropUnreadSessionIndexes",
            ["DROP INDEX IF EXISTS session_families_user", "DROP INDEX IF EXISTS refresh_tokens_user"]
        ),
        // The audit trail (SecurityEventLog): the same table in every data service.
        SecurityEventLog.migration,
        // MFA policy (docs/mfa-policy.md): when the session last passed a second factor (step-up),
        // and the end of an enrollment-only session (MANDATORY without a factor).
        TenantMigration(
            "AddAssuranceToSessionFamilies",
            [
                """
                ALTER TABLE session_families ADD COLUMN second_factor_auth_time timestamptz,
                    ADD COLUMN enrollment_only_until timestamptz
                """
            ]
        ),
        // The passkey a passkey sign-in used (issue 59): its deletion ends the sessions it started.
        TenantMigration(
            "AddFirstFactorIdentifierToSessionFamilies",
            [
                "ALTER TABLE session_families ADD COLUMN first_factor_identifier text",
                """
                CREATE INDEX session_families_first_factor ON session_families (local_id, first_factor_identifier)
                WHERE first_factor_identifier IS NOT NULL
                """,
            ]
        ),
    ]
}
