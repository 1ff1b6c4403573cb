import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore
import _CryptoExtras

/// Signing keys in `control.signing_keys`: the private key only sealed with the master key.
struct SigningKeyRepository: Sendable {
    let client: Database
    let sealer: SecretSealer
    let logger: Logger

    func all() async throws -> [SigningKey] {
        let rows = try await client.query(
            "SELECT kid, sealed_private_key, certificate_pem, signing_from FROM control.signing_keys ORDER BY signing_from",
            logger: logger
        )
        var keys: [SigningKey] = []
        for try await row in rows.decode(rows: StoredSigningKey.self) {
            let (kid, sealed, certificate, signingFrom) = (row.kid, row.sealedPrivateKey, row.certificatePEM, row.signingFrom)
            let der: Data
            do {
                der = try sealer.open(sealed, keyID: kid)
            } catch {
                throw UnreadableSigningKey(kid: kid)
            }
            keys.append(
                try SigningKey(
                    kid: kid, privateKey: try _RSA.Signing.PrivateKey(derRepresentation: der), certificatePEM: certificate,
                    signingFrom: signingFrom
                )
            )
        }
        return keys
    }

    /// Adds a key. With `onlyIfNone`, adds it only when the table is empty (first start of any
    /// instance), under a lock so that concurrent first starts create exactly one key.
    @discardableResult
    func insert(_ key: SigningKey, onlyIfNone: Bool) async throws -> Bool {
        let sealed = try sealer.seal(key.privateKey.derRepresentation, keyID: key.kid)
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('control.signing_keys'))", logger: logger)
            if onlyIfNone {
                let rows = try await connection.query("SELECT count(*)::int FROM control.signing_keys", logger: logger)
                for try await count in rows.decode(Int.self) where count > 0 { return false }
            }
            try await connection.query(
                """
                INSERT INTO control.signing_keys (kid, algorithm, sealed_private_key, certificate_pem, signing_from)
                VALUES (\(key.kid), 'RS256', \(sealed), \(key.certificatePEM), \(key.signingFrom))
                """,
                logger: logger
            )
            return true
        }
    }

    /// Removes keys that are no longer published (no token they signed can still be valid).
    func delete(kids: [String]) async throws {
        guard !kids.isEmpty else { return }
        try await client.query("DELETE FROM control.signing_keys WHERE kid = ANY(\(kids))", logger: logger)
    }
}

/// A stored key that the configured master key does not open: the wrong master key, or tampering.
struct UnreadableSigningKey: Error, CustomStringConvertible {
    let kid: String
    var description: String { "signing key \(kid) cannot be opened with this master key" }
}

/// A signing key as stored: its private key sealed.
private struct StoredSigningKey: StatementRow {
    let kid: String
    let sealedPrivateKey: Data
    let certificatePEM: String
    let signingFrom: Date

    init(_ columns: RowColumns) throws {
        kid = try columns("kid")
        sealedPrivateKey = try columns("sealed_private_key")
        certificatePEM = try columns("certificate_pem")
        signingFrom = try columns("signing_from")
    }
}
