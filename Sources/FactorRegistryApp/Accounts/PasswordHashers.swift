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
    /// Where imported hashes are checked (half the pool, one at a time per account).
    let importedLane: ImportedHashLane
    /// A hash of a random password per parameter set, checked when an email is unknown so the
    /// answer takes as long as for a known one.
    private let decoys: [String: String]

    struct InvalidEntry: Error, CustomStringConvertible {
        let entry: String
        var description: String {
            "passwords.scrypt.projects entry \"\(entry)\" is not <projectId>=<N>:<r>:<p> with N a power of two within limits"
        }
    }

    init(standard: PasswordHasher, projectEntries: [String], sealer: SecretSealer, importedLane: ImportedHashLane? = nil) throws {
        self.sealer = sealer
        self.importedLane =
            importedLane
            ?? ImportedHashLane(width: 1, maximumWaiting: min(standard.queue.maximum, 1024), deadline: .seconds(10))
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
    /// the hashing queue is full, or `account` has a check of an imported hash running already.
    /// A hash whose cost is over the bounds (``ImportedHashCost``) fails like a wrong password,
    /// after a decoy's hash so that it answers in the same time; one in a form other than the
    /// project's own runs in the imported lane.
    func verify(_ password: String, against stored: String, account: String? = nil, projectId: String = "") async throws -> Bool {
        guard ImportedHashCost.isCheckable(stored, ownWork: strongestOwnWork) else {
            _ = try await standard.verify(password, against: decoy(for: projectId))
            return false
        }
        if hasher(for: projectId).isCurrent(stored) || standard.isCurrent(stored) {
            return try await standard.verify(password, against: stored)
        }
        let (sealer, inner, queue) = (self.sealer, standard, standard.queue)
        return try await importedLane.run(account: account) {
            try await queue.run {
                if stored.hasPrefix("scrypt$") || stored.hasPrefix(FirebaseScrypt.tag + "$") {
                    return inner.verifyBlocking(password, against: stored)
                }
                return ImportedPasswordHash.matches(password, stored: stored, sealer: sealer, inner: inner)
            }
        }
    }

    /// N·r·p of the strongest parameters this deployment hashes with itself.
    var strongestOwnWork: Int {
        ([standard] + Array(byProject.values)).map { $0.rounds * $0.blockSize * $0.parallelism }.max() ?? 0
    }

    /// Whether a hash that just matched should be replaced by the project's own: an imported
    /// algorithm's, or one made under other parameters or in another form than the project's now.
    func needsRehash(_ stored: String, projectId: String) -> Bool {
        !hasher(for: projectId).isCurrent(stored)
    }

    func decoy(for projectId: String) -> String { decoys[byProject[projectId] == nil ? "" : projectId] ?? decoys[""]! }
}
