import PostgresNIO
import TenantStore

/// The statements of ``IosReceipts``, each a type: its values, its text in a schema, its row.
extension IosReceipts {
    /// A receipt and its secret, stored as their digests, live for `seconds`.
    struct InsertReceipt: Statement {
        let receiptHash: String
        let secretDigest: [UInt8]
        let seconds: Double

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(IosReceipts.table)) (receipt_hash, secret_hash, expires_at)
            VALUES (\(receiptHash), \(ByteBuffer(bytes: secretDigest)), now() + make_interval(secs => \(seconds)))
            """
        }
    }

    /// The unused, unexpired receipt with `receiptHash`, used up; its row is its secret's digest,
    /// no row: no such receipt.
    struct UseReceipt: Statement {
        typealias Row = SingleValue<ByteBuffer>
        let receiptHash: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(IosReceipts.table)) SET used_at = now()
            WHERE receipt_hash = \(receiptHash) AND used_at IS NULL AND expires_at > now()
            RETURNING secret_hash
            """
        }
    }
}
