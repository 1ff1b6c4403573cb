import ServiceKit
import TenantStore

/// challenge-issuer's schema history, oldest first. Append only.
enum ChallengeIssuerMigrations {
    /// The service's own tables, in schema `control`.
    /// Send rate limits and guessing budgets (token buckets), shared by every instance; keys are hashes.
    static let control: [TenantMigration] = RateLimiter.migrations

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
        // Sessions are found by SHA-256 of their `sessionInfo`; a TOTP enrollment session holds its
        // user and its sealed secret; an SMS session its salt, purpose and send time.
        TenantMigration(
            "AddFactorFieldsToVerificationSessions",
            [
                "ALTER TABLE verification_sessions ADD COLUMN local_id text",
                "ALTER TABLE verification_sessions ADD COLUMN secret_sealed bytea",
                "ALTER TABLE verification_sessions ADD COLUMN salt bytea",
                "ALTER TABLE verification_sessions ADD COLUMN purpose text",
            ]
        ),
        // Enrolled TOTP factors: the secret sealed with the enrollment id as associated data, the
        // last accepted time step (replay protection) and the wrong-code window (throttling).
        TenantMigration(
            "CreateTotpFactorsTable",
            [
                """
                CREATE TABLE totp_factors (
                    enrollment_id text PRIMARY KEY,
                    local_id text NOT NULL,
                    secret_sealed bytea NOT NULL,
                    last_step bigint NOT NULL,
                    failures integer NOT NULL DEFAULT 0,
                    failure_window_start timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX totp_factors_by_account ON totp_factors (local_id)",
            ]
        ),
        // iOS app-verification receipts: receipt and secret only as SHA-256, single use.
        TenantMigration(
            "CreateIosReceiptsTable",
            [
                """
                CREATE TABLE ios_receipts (
                    receipt_hash text PRIMARY KEY,
                    secret_hash bytea NOT NULL,
                    expires_at timestamptz NOT NULL,
                    used_at timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX ios_receipts_expiry ON ios_receipts (expires_at)",
            ]
        ),
        // A TOTP factor's daily budget of wrong codes (GuessingBudget), kept in the factor's row so
        // the one statement that decides a check also spends it. NULL: full.
        TenantMigration(
            "AddGuessingBudgetToTotpFactors",
            [
                "ALTER TABLE totp_factors ADD COLUMN budget double precision, ADD COLUMN budget_updated_at timestamptz"
            ]
        ),
        // Finalizes that can be retried: a session used by a flow that names
        // itself (`attempt`) is kept, marked with it, until it expires, and a TOTP factor remembers
        // which sign-in recorded its last step. The same attempt is then accepted again.
        TenantMigration(
            "AddRetriedAttempts",
            [
                "ALTER TABLE verification_sessions ADD COLUMN consumed_by text",
                "ALTER TABLE totp_factors ADD COLUMN last_step_attempt text",
            ]
        ),
        // The emulator's `oobCodes` list shows an email change's new address (`newEmail`).
        TenantMigration("AddNewEmailToDevelopmentOutbox", ["ALTER TABLE development_outbox ADD COLUMN new_email text"]),
        // The emulator routes show each message as it was written, and in which language.
        TenantMigration(
            "AddRenderedMessageToDevelopmentOutbox",
            ["ALTER TABLE development_outbox ADD COLUMN subject text, ADD COLUMN text text, ADD COLUMN html text, ADD COLUMN locale text"]
        ),
        // The SMS pumping defence (SMSDefense): each destination's row (its lock and its pause), the
        // last day's sends, and each UTC day's sums per destination.
        TenantMigration(
            "CreateSMSDefenseTables",
            [
                "CREATE TABLE sms_regions (region text PRIMARY KEY, paused_at timestamptz, reason text, resumed_at timestamptz)",
                """
                CREATE TABLE sms_sends (
                    id bigserial PRIMARY KEY,
                    sent_at timestamptz NOT NULL DEFAULT now(),
                    region text NOT NULL,
                    prefix text NOT NULL,
                    segments integer NOT NULL,
                    cost_micros bigint NOT NULL,
                    session_id text NOT NULL,
                    verified_at timestamptz
                )
                """,
                "CREATE INDEX sms_sends_region ON sms_sends (region, sent_at)",
                "CREATE INDEX sms_sends_prefix ON sms_sends (prefix, sent_at)",
                "CREATE INDEX sms_sends_session ON sms_sends (session_id)",
                "CREATE INDEX sms_sends_sent_at ON sms_sends (sent_at)",
                """
                CREATE TABLE sms_daily (
                    day date NOT NULL,
                    region text NOT NULL,
                    sends integer NOT NULL DEFAULT 0,
                    verified integer NOT NULL DEFAULT 0,
                    cost_micros bigint NOT NULL DEFAULT 0,
                    PRIMARY KEY (day, region)
                )
                """,
            ]
        ),
        // The audit trail (SecurityEventLog): the same table in every data service.
        SecurityEventLog.migration,
        // Decision 22, single use: the sign-ins each pending credential finished, with what passed
        // them (FinishedSignIns), and the time step a TOTP enrollment session was finished with, so
        // only an exact retry passes again.
        TenantMigration(
            "CreateFinishedSignIns",
            [
                "CREATE TABLE finished_sign_ins (attempt text PRIMARY KEY, proof text NOT NULL, expires_at timestamptz NOT NULL)",
                "CREATE INDEX finished_sign_ins_expiry ON finished_sign_ins (expires_at)",
                "ALTER TABLE verification_sessions ADD COLUMN consumed_step bigint",
            ]
        ),
        // Recovery codes (docs/mfa-policy.md): one set per recovery-code enrollment with its
        // guessing window and budget (as a TOTP factor's), and its codes only as keyed hashes.
        TenantMigration(
            "CreateRecoveryCodes",
            [
                """
                CREATE TABLE recovery_code_sets (
                    enrollment_id text PRIMARY KEY,
                    local_id text NOT NULL,
                    failures integer NOT NULL DEFAULT 0,
                    failure_window_start timestamptz,
                    budget double precision,
                    budget_updated_at timestamptz,
                    generated_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX recovery_code_sets_by_account ON recovery_code_sets (local_id)",
                """
                CREATE TABLE recovery_codes (
                    enrollment_id text NOT NULL REFERENCES recovery_code_sets ON DELETE CASCADE,
                    local_id text NOT NULL,
                    code_hash bytea NOT NULL,
                    used_at timestamptz,
                    PRIMARY KEY (enrollment_id, code_hash)
                )
                """,
                "CREATE INDEX recovery_codes_by_account ON recovery_codes (local_id)",
            ]
        ),
        // WebAuthn challenges (issue 59): SHA-256 of the bytes, what they are for, until when.
        TenantMigration(
            "CreatePasskeyChallenges",
            [
                """
                CREATE TABLE passkey_challenges (
                    challenge_hash bytea PRIMARY KEY,
                    purpose text NOT NULL CHECK (purpose IN ('enroll', 'signIn')),
                    local_id text NOT NULL,
                    expires_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at)",
            ]
        ),
    ]
}
