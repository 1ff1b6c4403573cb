import Crypto
import Foundation
import Logging
import PostgresNIO

/// Token buckets in PostgreSQL (`control.rate_buckets`), so a limit holds across every instance of
/// the service. Keys are SHA-256 of what they limit (a phone number, a client address): the table
/// does not list who asked for codes.
struct RateLimiter: Sendable {
    struct Rule: Sendable {
        /// Tokens when full (the burst).
        let capacity: Double
        /// Tokens added per second.
        let refillPerSecond: Double
    }

    let client: PostgresClient
    let logger: Logger

    /// Takes one token from the bucket of `key`; `false` when it is empty.
    func take(_ key: String, rule: Rule) async throws -> Bool {
        let hashed = SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
        // One statement: refill by elapsed time, cap, take one if there is one.
        let rows = try await client.query(
            cached: """
            INSERT INTO control.rate_buckets AS b (bucket_key, tokens, updated_at)
            VALUES (\(hashed), \(rule.capacity - 1), now())
            ON CONFLICT (bucket_key) DO UPDATE SET
                tokens = least(\(rule.capacity), b.tokens + extract(epoch FROM now() - b.updated_at) * \(rule.refillPerSecond)) - 1,
                updated_at = now()
            WHERE least(\(rule.capacity), b.tokens + extract(epoch FROM now() - b.updated_at) * \(rule.refillPerSecond)) >= 1
            RETURNING tokens
            """,
            logger: logger
        )
        for try await _ in rows.decode(Double.self) { return true }
        return false
    }
}
