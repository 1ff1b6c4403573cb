import Configuration
import Crypto
import Foundation
import Logging
import PostgresNIO
import TenantStore

/// Token buckets in PostgreSQL (`control.rate_buckets` of the service's own database), so a limit
/// holds across every instance of the service. Keys are SHA-256 of what they limit (a phone number,
/// a client address, an email): the table does not list who asked for what.
public struct RateLimiter: Sendable {
    public struct Rule: Sendable, Hashable {
        /// Tokens when full (the burst).
        public let capacity: Double
        /// Tokens added per second.
        public let refillPerSecond: Double

        public init(capacity: Double, refillPerSecond: Double) {
            self.capacity = capacity
            self.refillPerSecond = refillPerSecond
        }

        /// `<key>.burst` and `<key>.perHour` from configuration.
        public init(_ reader: ConfigReader, _ key: String, burst: Int, perHour: Int) {
            self.init(
                capacity: Double(reader.int(forKey: ConfigKey("\(key).burst"), default: burst)),
                refillPerSecond: Double(reader.int(forKey: ConfigKey("\(key).perHour"), default: perHour)) / 3600
            )
        }
    }

    let client: Database
    let logger: Logger

    public init(client: Database, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Takes one token from the bucket of `key`; `false` when it is empty.
    public func take(_ key: String, rule: Rule) async throws -> Bool {
        let rows = try await client.query(cached: Self.taking(key, rule: rule), logger: logger)
        for try await _ in rows.decode(Double.self) { return true }
        return false
    }

    /// The same inside `connection`'s transaction: the token is spent only if the transaction commits.
    public func take(_ key: String, rule: Rule, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(cached: Self.taking(key, rule: rule), logger: logger)
        for try await _ in rows.decode(Double.self) { return true }
        return false
    }

    /// One statement: refill by elapsed time, cap, take one if there is one; and note when the
    /// bucket will be full again (`full_at`), after which it is the same as no bucket.
    private static func taking(_ key: String, rule: Rule) -> CachedQuery {
        let hashed = hash(key)
        // Seconds per token; a rule that never refills keeps its buckets (for ever, in effect).
        let perToken = rule.refillPerSecond > 0 ? 1 / rule.refillPerSecond : 1e12
        return """
            INSERT INTO control.rate_buckets AS b (bucket_key, tokens, updated_at, full_at)
            VALUES (\(hashed), \(rule.capacity - 1), now(), now() + make_interval(secs => \(perToken)))
            ON CONFLICT (bucket_key) DO UPDATE SET
                tokens = least(\(rule.capacity), b.tokens + extract(epoch FROM now() - b.updated_at) * \(rule.refillPerSecond)) - 1,
                updated_at = now(),
                full_at = now() + make_interval(secs => (\(rule.capacity) + 1
                    - least(\(rule.capacity), b.tokens + extract(epoch FROM now() - b.updated_at) * \(rule.refillPerSecond)))
                    * \(perToken))
            WHERE least(\(rule.capacity), b.tokens + extract(epoch FROM now() - b.updated_at) * \(rule.refillPerSecond)) >= 1
            RETURNING tokens
            """
    }

    /// Puts back the token a `take` of `key` took (an attempt that was budgeted as a failure
    /// succeeded), never above the bucket's capacity.
    public func giveBack(_ key: String, rule: Rule) async throws {
        let perToken = rule.refillPerSecond > 0 ? 1 / rule.refillPerSecond : 1e12
        try await client.query(
            cached: """
                UPDATE control.rate_buckets SET
                    tokens = least(\(rule.capacity), tokens + extract(epoch FROM now() - updated_at) * \(rule.refillPerSecond) + 1),
                    updated_at = now(),
                    full_at = now() + make_interval(secs => greatest(0, \(rule.capacity)
                        - least(\(rule.capacity), tokens + extract(epoch FROM now() - updated_at) * \(rule.refillPerSecond) + 1))
                        * \(perToken))
                WHERE bucket_key = \(Self.hash(key))
                """,
            logger: logger
        )
    }

    static func hash(_ key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The table, for a service's `control` migrations (append-only, in this order).
    public static let migrations = [
        TenantMigration(
            "CreateRateBucketsTable",
            [
                """
                CREATE TABLE rate_buckets (
                    bucket_key text PRIMARY KEY,
                    tokens double precision NOT NULL,
                    updated_at timestamptz NOT NULL
                )
                """
            ]
        ),
        // When each bucket is full again, whatever its rule: buckets of a slow rule (a day's
        // guessing budget) and of a fast one (a second's send limit) share the table.
        TenantMigration(
            "AddFullAtToRateBuckets",
            ["ALTER TABLE rate_buckets ADD COLUMN full_at timestamptz NOT NULL DEFAULT now()"]
        ),
    ]

    /// A bucket left alone until it is full again is the same as no bucket: the next take starts a
    /// full one. Each is deleted once its `full_at` has passed.
    public static let fullBuckets = RetentionRule(
        "full rate-limit buckets", scope: .control, table: "rate_buckets", key: "bucket_key", column: "full_at",
        retention: .zero, indexed: false
    )
}
