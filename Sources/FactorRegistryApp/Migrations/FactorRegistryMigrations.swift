import ServiceKit
import TenantStore

/// factor-registry's schema history, oldest first. Append only.
enum FactorRegistryMigrations {
    /// The tenant registry, in schema `control`.
    static let control: [TenantMigration] =
        [
            TenantMigration(
                "CreateProjectsTable",
                [
                    """
                    CREATE TABLE projects (
                        project_id text PRIMARY KEY,
                        state text NOT NULL CHECK (state IN ('provisioning', 'active')),
                        created_at timestamptz NOT NULL DEFAULT now()
                    )
                    """
                ]
            ),
            TenantMigration(
                "CreateTenantsTable",
                [
                    """
                    CREATE TABLE tenants (
                        tenant_id text PRIMARY KEY,
                        project_id text NOT NULL REFERENCES projects (project_id),
                        display_name text,
                        state text NOT NULL CHECK (state IN ('provisioning', 'active', 'deleting')),
                        idempotency_key text,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        updated_at timestamptz NOT NULL DEFAULT now(),
                        UNIQUE (project_id, idempotency_key)
                    )
                    """,
                    "CREATE INDEX tenants_by_project ON tenants (project_id, tenant_id)",
                    "CREATE INDEX tenants_unfinished ON tenants (state) WHERE state <> 'active'",
                ]
            ),
            // Sign-in and MFA settings (`AuthSettings` as JSON; NULL = the defaults) with a version
            // that every update compares and bumps, so concurrent PATCHes never lose one another.
            TenantMigration(
                "AddSettingsToProjectsAndTenants",
                [
                    "ALTER TABLE projects ADD COLUMN settings jsonb",
                    "ALTER TABLE projects ADD COLUMN settings_version bigint NOT NULL DEFAULT 0",
                    "ALTER TABLE tenants ADD COLUMN settings jsonb",
                    "ALTER TABLE tenants ADD COLUMN settings_version bigint NOT NULL DEFAULT 0",
                ]
            ),
            // Each project's API key (decision 11), made when the project is first recorded.
            TenantMigration("AddAPIKeyToProjects", ["ALTER TABLE projects ADD COLUMN api_key text UNIQUE"]),
            // Every change to a project or tenant row, however made, names its project on channel
            // `mfa_settings`, where each factor-registry instance drops it from its settings cache.
            TenantMigration(
                "NotifySettingsChanges",
                [
                    """
                    CREATE FUNCTION notify_settings_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        PERFORM pg_notify('mfa_settings', CASE WHEN TG_OP = 'DELETE' THEN OLD.project_id ELSE NEW.project_id END);
                        RETURN NULL;
                    END
                    $$
                    """,
                    """
                    CREATE TRIGGER projects_notify_settings AFTER INSERT OR UPDATE OR DELETE ON projects
                    FOR EACH ROW EXECUTE FUNCTION notify_settings_changed()
                    """,
                    """
                    CREATE TRIGGER tenants_notify_settings AFTER INSERT OR UPDATE OR DELETE ON tenants
                    FOR EACH ROW EXECUTE FUNCTION notify_settings_changed()
                    """,
                ]
            ),
            // Each project's signer key for exported password hashes (FirebaseScrypt), sealed under
            // factor-registry's master key; made on first use.
            TenantMigration(
                "CreatePasswordSignerKeys",
                [
                    """
                    CREATE TABLE password_signer_keys (
                        project_id text PRIMARY KEY,
                        sealed_key bytea NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now()
                    )
                    """
                ]
            ),
            // The nonces of identity providers' ID tokens already used, one store for the whole
            // deployment keyed by issuer and nonce (issue 56, F-10): a token used once in one project
            // or tenant is refused in every other that shares the provider's client id.
            TenantMigration(
                "CreateUsedNoncesTable",
                [
                    """
                    CREATE TABLE idp_used_nonces (
                        nonce_hash bytea PRIMARY KEY,
                        expires_at timestamptz NOT NULL
                    )
                    """,
                    "CREATE INDEX idp_used_nonces_expiry ON idp_used_nonces (expires_at)",
                ]
            ),
        ]
        // First-factor limits (token buckets), shared by every instance; keys are hashes.
        + RateLimiter.migrations

    /// Tables of every tenant schema.
    static let tenant: [TenantMigration] = [
        TenantMigration(
            "CreateAccountsTable",
            [
                """
                CREATE TABLE accounts (
                    local_id text PRIMARY KEY,
                    email text,
                    email_normalized text UNIQUE,
                    email_verified boolean NOT NULL DEFAULT false,
                    display_name text,
                    password_hash text,
                    disabled boolean NOT NULL DEFAULT false,
                    valid_since timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    last_login_at timestamptz
                )
                """
            ]
        ),
        // Developer claims (`customAttributes`): a JSON object as text, at most 1000 bytes.
        TenantMigration("AddCustomAttributesToAccounts", ["ALTER TABLE accounts ADD COLUMN custom_attributes text"]),
        // E.164 phone numbers set by admins (Admin SDK `phoneNumber`); unique within a tenant.
        TenantMigration("AddPhoneNumberToAccounts", ["ALTER TABLE accounts ADD COLUMN phone_number text UNIQUE"]),
        // Out-of-band codes (`VERIFY_EMAIL`): only a SHA-256 of each code is kept, and the email it
        // was sent to, so a code stops working when the account's email changes.
        TenantMigration(
            "CreateOobCodesTable",
            [
                """
                CREATE TABLE oob_codes (
                    code_hash bytea PRIMARY KEY,
                    request_type text NOT NULL,
                    local_id text NOT NULL REFERENCES accounts (local_id) ON DELETE CASCADE,
                    email text NOT NULL,
                    expires_at timestamptz NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX oob_codes_by_account ON oob_codes (local_id)",
                "CREATE INDEX oob_codes_expiry ON oob_codes (expires_at)",
            ]
        ),
        // Second factors (metadata only: TOTP secrets live in challenge-issuer). A phone number is
        // enrolled at most once per user; ids are unique per user (admins may set their own).
        TenantMigration(
            "CreateMfaEnrollmentsTable",
            [
                """
                CREATE TABLE mfa_enrollments (
                    enrollment_id text NOT NULL,
                    local_id text NOT NULL REFERENCES accounts (local_id) ON DELETE CASCADE,
                    kind text NOT NULL CHECK (kind IN ('phone', 'totp')),
                    display_name text,
                    phone_number text,
                    enrolled_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (local_id, enrollment_id),
                    UNIQUE (local_id, phone_number)
                )
                """,
                "CREATE INDEX mfa_enrollments_by_account ON mfa_enrollments (local_id, enrolled_at)",
            ]
        ),
        // The profile photo a user or admin sets (`photoUrl`), at most 2048 bytes.
        TenantMigration("AddPhotoUrlToAccounts", ["ALTER TABLE accounts ADD COLUMN photo_url text"]),
        // Every out-of-band request type: an email sign-in link may be for an address
        // with no account yet (no `local_id`); an email change carries the address it changes to,
        // or back to (`new_email`); a second-factor notice names the factor (`enrollment_id`).
        TenantMigration(
            "GeneraliseOobCodes",
            [
                "ALTER TABLE oob_codes ALTER COLUMN local_id DROP NOT NULL",
                "ALTER TABLE oob_codes ADD COLUMN new_email text, ADD COLUMN enrollment_id text",
            ]
        ),
        // The audit trail (SecurityEventLog): the same table in every data service.
        SecurityEventLog.migration,
        // REVERT_PHONE_NUMBER_ADDITION: the number the notice is about (issue 39, M-6).
        TenantMigration("AddPhoneNumberToOobCodes", ["ALTER TABLE oob_codes ADD COLUMN phone_number text"]),
        // Identity providers (issue 42): each one's configuration, the public part as JSON and its
        // secrets sealed under the master key (FederatedSignIn); the accounts' linked identities, one
        // per provider per account and each provider user on one account; and the nonces of ID tokens
        // already used, kept until the token would have expired anyway.
        TenantMigration(
            "CreateIdentityProviderTables",
            [
                """
                CREATE TABLE idp_configs (
                    provider_id text PRIMARY KEY,
                    kind text NOT NULL CHECK (kind IN ('defaultSupported', 'oidc')),
                    config jsonb NOT NULL,
                    sealed_client_secret bytea,
                    sealed_private_key bytea,
                    updated_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                """
                CREATE TABLE federated_identities (
                    provider_id text NOT NULL,
                    raw_id text NOT NULL,
                    local_id text NOT NULL REFERENCES accounts (local_id) ON DELETE CASCADE,
                    email text,
                    display_name text,
                    photo_url text,
                    linked_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (provider_id, raw_id),
                    UNIQUE (local_id, provider_id)
                )
                """,
                """
                CREATE TABLE idp_used_nonces (
                    nonce_hash bytea PRIMARY KEY,
                    expires_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX idp_used_nonces_expiry ON idp_used_nonces (expires_at)",
            ]
        ),
        // Recovery codes (docs/mfa-policy.md): a set is an enrollment of its own kind.
        TenantMigration(
            "AllowRecoveryCodeEnrollments",
            [
                """
                ALTER TABLE mfa_enrollments DROP CONSTRAINT mfa_enrollments_kind_check,
                    ADD CONSTRAINT mfa_enrollments_kind_check CHECK (kind IN ('phone', 'totp', 'recovery_code'))
                """
            ]
        ),
        // Accounts held for a beforeCreate function (docs/blocking-functions.md): since when, so that
        // one a crash left held is removed (AccountRepository.expiredHolds) instead of keeping its
        // email or number from its owner. NULL for every other account; any update releases it.
        TenantMigration(
            "AddHeldSinceToAccounts",
            [
                "ALTER TABLE accounts ADD COLUMN held_since timestamptz",
                "CREATE INDEX accounts_held_since ON accounts (held_since) WHERE held_since IS NOT NULL",
            ]
        ),
        // Since when the account has its phone number (issue 56, F-7): an email recovery removes a
        // number set after the change it undoes. Stamped by the database on every path that sets one
        // (sign-in, link, admin update, import), so no statement can forget it; NULL for numbers set
        // before this migration, which a recovery keeps.
        TenantMigration(
            "AddPhoneNumberSinceToAccounts",
            [
                "ALTER TABLE accounts ADD COLUMN phone_number_since timestamptz",
                """
                CREATE FUNCTION stamp_phone_number_since() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.phone_number IS NULL THEN
                        NEW.phone_number_since := NULL;
                    ELSIF TG_OP = 'INSERT' OR NEW.phone_number IS DISTINCT FROM OLD.phone_number THEN
                        NEW.phone_number_since := now();
                    END IF;
                    RETURN NEW;
                END
                $$
                """,
                """
                CREATE TRIGGER accounts_phone_number_since BEFORE INSERT OR UPDATE OF phone_number ON accounts
                FOR EACH ROW EXECUTE FUNCTION stamp_phone_number_since()
                """,
            ]
        ),
        // Used nonces moved to the deployment's one store in `control` (issue 56, F-10).
        TenantMigration("DropTenantUsedNonces", ["DROP TABLE idp_used_nonces"]),
        // Whether the address a code is about had been proved when it was made: a `VERIFY_AND_CHANGE_EMAIL`
        // code's old address, a `RECOVER_EMAIL` code's restored one (issue 56). NULL: not known.
        TenantMigration("AddEmailProvedToOobCodes", ["ALTER TABLE oob_codes ADD COLUMN email_proved boolean"]),
        // Passkeys (issue 59): WebAuthn credentials by their id (unique in the scope), with the COSE
        // public key as the authenticator gave it and the signature counter; gone with their account.
        TenantMigration(
            "CreatePasskeys",
            [
                """
                CREATE TABLE passkeys (
                    credential_id bytea PRIMARY KEY CHECK (octet_length(credential_id) BETWEEN 1 AND 1023),
                    local_id text NOT NULL REFERENCES accounts (local_id) ON DELETE CASCADE,
                    public_key bytea NOT NULL,
                    algorithm integer NOT NULL,
                    sign_count bigint NOT NULL,
                    name text NOT NULL,
                    aaguid bytea NOT NULL,
                    backup_eligible boolean NOT NULL,
                    backed_up boolean NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    last_used_at timestamptz
                )
                """,
                "CREATE INDEX passkeys_by_account ON passkeys (local_id)",
            ]
        ),
    ]
}
