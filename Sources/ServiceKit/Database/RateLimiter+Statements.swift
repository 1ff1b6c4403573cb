import TenantStore

/// The statements of ``RateLimiter``, each a type: its values, its text in a schema (always
/// ``TenantSchema/control``), its row.
extension RateLimiter {
    /// One statement: refill by elapsed time, cap, take one if there is one; and note when the
    /// bucket will be full again (`full_at`), after which it is the same as no bucket. No row: empty.
    struct Take: Statement {
        typealias Row = SingleValue<Double>
        let key: String
        let rule: Rule

        func query(in schema: TenantSchema) -> CachedQuery {
            let hashed = RateLimiter.hash(key)
            // Seconds per token; a rule that never refills keeps its buckets (for ever, in effect).
            let perToken = rule.refillPerSecond > 0 ? 1 / rule.refillPerSecond : 1e12
            return """
                INSERT INTO \(sql: schema.qualified(RateLimiter.table)) AS b (bucket_key, tokens, updated_at, full_at)
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
    }

    /// The token a `take` took put back, never above the bucket's capacity.
    struct GiveBack: Statement {
        let key: String
        let rule: Rule

        func query(in schema: TenantSchema) -> CachedQuery {
            let perToken = rule.refillPerSecond > 0 ? 1 / rule.refillPerSecond : 1e12
            return """
                UPDATE \(sql: schema.qualified(RateLimiter.table)) SET
                    tokens = least(\(rule.capacity), tokens + extract(epoch FROM now() - updated_at) * \(rule.refillPerSecond) + 1),
                    updated_at = now(),
                    full_at = now() + make_interval(secs => greatest(0, \(rule.capacity)
                        - least(\(rule.capacity), tokens + extract(epoch FROM now() - updated_at) * \(rule.refillPerSecond) + 1))
                        * \(perToken))
                WHERE bucket_key = \(RateLimiter.hash(key))
                """
        }
    }
}
