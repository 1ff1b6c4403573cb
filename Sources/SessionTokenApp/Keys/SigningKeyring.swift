import Foundation
import Logging
import ServiceKit
import Synchronization

/// The signing keys every instance of session-token shares through PostgreSQL.
///
/// Rotation adds a key that is published at once but signs only after `rotationLead`, longer than
/// any verifier may cache the key set; a superseded key stays published for `retention` (the ID
/// token lifetime plus a margin), so every token ever issued can be verified until it expires.
final class SigningKeyring: Sendable {
    let repository: SigningKeyRepository
    let rotationLead: TimeInterval
    let retention: TimeInterval
    private let keys = Mutex<[SigningKey]>([])

    init(repository: SigningKeyRepository, rotationLead: TimeInterval, retention: TimeInterval) {
        self.repository = repository
        self.rotationLead = rotationLead
        self.retention = retention
    }

    /// Creates the first key if there is none (any instance, any number of times), then loads all.
    func prepare() async throws {
        try await repository.insert(try await BlockingWork.run { try SigningKey.generate(signingFrom: Date()) }, onlyIfNone: true)
        try await reload()
    }

    func reload() async throws {
        let loaded = try await repository.all().sorted { $0.signingFrom < $1.signingFrom }
        keys.withLock { $0 = loaded }
    }

    /// Adds a new key that starts signing after the rotation lead.
    func rotate(now: Date = Date()) async throws -> SigningKey {
        let key = try await BlockingWork.run { [rotationLead] in try SigningKey.generate(signingFrom: now + rotationLead) }
        try await repository.insert(key, onlyIfNone: false)
        try await reload()
        return key
    }

    /// The key that signs at `now`: the latest whose signing has started.
    func signer(at now: Date = Date()) -> SigningKey? {
        keys.withLock { keys in keys.last { $0.signingFrom <= now } ?? keys.first }
    }

    /// Every key a verifier may meet at `now`: keys not yet signing, the signer, and keys
    /// superseded less than `retention` ago.
    func published(at now: Date = Date()) -> [SigningKey] {
        keys.withLock { keys in
            keys.enumerated().filter { index, _ in
                guard index + 1 < keys.count else { return true }
                let supersededAt = keys[index + 1].signingFrom
                return supersededAt > now || supersededAt > now - retention
            }.map(\.element)
        }
    }

    /// Keys no verifier can need any more.
    func expired(at now: Date = Date()) -> [SigningKey] {
        let published = Set(published(at: now).map(\.kid))
        return keys.withLock { $0.filter { !published.contains($0.kid) } }
    }
}
