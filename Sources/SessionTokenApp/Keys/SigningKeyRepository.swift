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

    static let table: SQLText = "signing_keys"

    func all() async throws -> [SigningKey] {
        try await client.run(ReadKeys(), in: .control, logger: logger).map { row in
            let der: Data
            do {
                der = try sealer.open(row.sealedPrivateKey, keyID: row.kid)
            } catch {
                throw UnreadableSigningKey(kid: row.kid)
            }
            return try SigningKey(
                kid: row.kid, privateKey: try _RSA.Signing.PrivateKey(derRepresentation: der), certificatePEM: row.certificatePEM,
                signingFrom: row.signingFrom
            )
        }
    }

    /// Adds a key. With `onlyIfNone`, adds it only when the table is empty (first start of any
    /// instance), under a lock so that concurrent first starts create exactly one key.
    @discardableResult
    func insert(_ key: SigningKey, onlyIfNone: Bool) async throws -> Bool {
        let sealed = try sealer.seal(key.privateKey.derRepresentation, keyID: key.kid)
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.run(LockKeys(), in: .control, logger: logger)
            if onlyIfNone, let count = try await connection.first(CountKeys(), in: .control, logger: logger)?.value, count > 0 {
                return false
            }
            try await connection.run(
                InsertKey(kid: key.kid, sealedPrivateKey: sealed, certificatePEM: key.certificatePEM, signingFrom: key.signingFrom),
                in: .control, logger: logger)
            return true
        }
    }

    /// Removes keys that are no longer published (no token they signed can still be valid).
    func delete(kids: [String]) async throws {
        guard !kids.isEmpty else { return }
        try await client.run(DeleteKeys(kids: kids), in: .control, logger: logger)
    }
}

/// A stored key that the configured master key does not open: the wrong master key, or tampering.
struct UnreadableSigningKey: Error, CustomStringConvertible {
    let kid: String
    var description: String { "signing key \(kid) cannot be opened with this master key" }
}
