import Contracts
import Foundation
import ServiceKit

/// The scrypt parameters of each project: `passwords.scrypt.*` for all, overridden per project by
/// `passwords.scrypt.projects` entries `"<projectId>=<N>:<r>:<p>"`. Stored hashes carry their own
/// parameters, so changing a project's only affects passwords set afterwards; an imported hash
/// (``ImportedPasswordHash``), or one of other parameters, is replaced at the user's next sign-in.
struct PasswordHashers: Sendable {
    let standard: PasswordHasher
    let byProject: [String: PasswordHasher]
    /// Opens imported HMAC keys (factor-registry's master key).
    let sealer: SecretSealer
    /// A hash of a random password per parameter set, checked when an email is unknown so the
    /// answer takes as long as for a known one.
    private let decoys: [String: String]

    struct InvalidEntry: Error, CustomStringConvertible {
        let entry: String
        var description: String {
            "passwords.scrypt.projects entry \"\(entry)\" is not <projectId>=<N>:<r>:<p> with N a power of two within limits"
        }
    }

    init(standard: PasswordHasher, projectEntries: [String], sealer: SecretSealer) throws {
        self.sealer = sealer
        guard
            PasswordHasher.acceptable(
                rounds: standard.rounds, blockSize: standard.blockSize, parallelism: standard.parallelism,
                keyLength: PasswordHasher.keyLength
            )
        else { throw InvalidEntry(entry: "passwords.scrypt.rounds/blockSize/parallelism") }
        var byProject: [String: PasswordHasher] = [:]
        for entry in projectEntries {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            let numbers = parts.count == 2 ? parts[1].split(separator: ":").compactMap { Int($0) } : []
            guard parts.count == 2, !parts[0].isEmpty, numbers.count == 3,
                PasswordHasher.acceptable(
                    rounds: numbers[0], blockSize: numbers[1], parallelism: numbers[2], keyLength: PasswordHasher.keyLength
                )
            else { throw InvalidEntry(entry: entry) }
            byProject[parts[0]] = PasswordHasher(
                rounds: numbers[0], blockSize: numbers[1], parallelism: numbers[2], queue: standard.queue
            )
        }
        self.standard = standard
        self.byProject = byProject
        var decoys = ["": try standard.hashBlocking(RandomIdentifier.make())]
        for (project, hasher) in byProject { decoys[project] = try hasher.hashBlocking(RandomIdentifier.make()) }
        self.decoys = decoys
    }

    func hasher(for projectId: String) -> PasswordHasher { byProject[projectId] ?? standard }

    /// The stored form of `password` under the project's parameters; `nil` when there is none.
    func hash(_ password: String?, for projectId: String) async throws -> String? {
        guard let password else { return nil }
        return try await hasher(for: projectId).hash(password)
    }

    /// Whether `password` matches `stored`, in any form this server keeps (its own scrypt, or an
    /// imported algorithm's), compared in constant time. Throws `TOO_MANY_ATTEMPTS_TRY_LATER` when
    /// the hashing queue is full.
    func verify(_ password: String, against stored: String) async throws -> Bool {
        if stored.hasPrefix("scrypt$") || stored.hasPrefix(FirebaseScrypt.tag + "$") {
            return try await standard.verify(password, against: stored)
        }
        let (sealer, inner) = (self.sealer, standard)
        return try await standard.queue.run { ImportedPasswordHash.matches(password, stored: stored, sealer: sealer, inner: inner) }
    }

    /// Whether a hash that just matched should be replaced by the project's own: an imported
    /// algorithm's, or one made under other parameters or in another form than the project's now.
    func needsRehash(_ stored: String, projectId: String) -> Bool {
        !hasher(for: projectId).isCurrent(stored)
    }

    func decoy(for projectId: String) -> String { decoys[byProject[projectId] == nil ? "" : projectId] ?? decoys[""]! }
}
