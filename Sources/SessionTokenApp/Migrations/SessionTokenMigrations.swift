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
        )
    ]
}
