import TenantStore

/// challenge-issuer's schema history, oldest first. Append only.
enum ChallengeIssuerMigrations {
    /// Tables of every tenant schema.
    static let tenant: [TenantMigration] = [
        // A phone or TOTP verification in progress: only a hash of the code is kept.
        TenantMigration(
            "CreateVerificationSessionsTable",
            [
                """
                CREATE TABLE verification_sessions (
                    session_id text PRIMARY KEY,
                    kind text NOT NULL,
                    code_hash bytea,
                    phone_number text,
                    attempts integer NOT NULL DEFAULT 0,
                    expires_at timestamptz NOT NULL,
                    consumed_at timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX verification_sessions_expiry ON verification_sessions (expires_at)",
            ]
        ),
        // What the development sink received (development mode only), for the emulator's helper
        // routes. Production never writes here: it holds codes in the clear.
        TenantMigration(
            "CreateDevelopmentOutboxTable",
            [
                """
                CREATE TABLE development_outbox (
                    id bigserial PRIMARY KEY,
                    channel text NOT NULL,
                    recipient text NOT NULL,
                    request_type text NOT NULL,
                    code text NOT NULL,
                    link text,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """
            ]
        ),
    ]
}
