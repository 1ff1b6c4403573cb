import ServiceKit
import TenantStore

/// session-token's tenant-independent tables (schema `control`), oldest first. Append only.
enum SessionTokenControlMigrations {
    static let all: [TenantMigration] =
        [
            // One key set for every project and tenant, like Google's securetoken@system account.
            TenantMigration(
                "CreateSigningKeysTable",
                [
                    """
                    CREATE TABLE signing_keys (
                        kid text PRIMARY KEY,
                        algorithm text NOT NULL,
                        sealed_private_key bytea NOT NULL,
                        certificate_pem text NOT NULL,
                        signing_from timestamptz NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now()
                    )
                    """
                ]
            )
        ]
        // Refresh limits per client address (token buckets), shared by every instance.
        + RateLimiter.migrations
}
