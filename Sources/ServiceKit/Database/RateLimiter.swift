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

    static let table: SQLText = "rate_buckets"

    public init(client: Database, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Takes one token from the bucket of `key`; `false` when it is empty.
    public func take(_ key: String, rule: Rule) async throws -> Bool {
        try await client.first(Take(key: key, rule: rule), in: .control, logger: logger) != nil
    }

    /// The same inside `connection`'s transaction: the token is spent only if the transaction commits.
    public func take(_ key: String, rule: Rule, on connection: PostgresConnection) async throws -> Bool {
        try await connection.first(Take(key: key, rule: rule), in: .control, logger: logger) != nil
    }

    /// Puts back the token a `take` of `key` took (an attempt that was budgeted as a failure
    /// succeeded), never above the bucket's capacity.
    public func giveBack(_ key: String, rule: Rule) async throws {
        try await client.run(GiveBack(key: key, rule: rule), in: .control, logger: logger)
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
        "full rate-limit buckets", scope: .control, table: Self.table, key: "bucket_key", column: "full_at",
        retention: .zero, indexed: false
    )
}
