import Contracts

/// The scrypt parameters of each project: `passwords.scrypt.*` for all, overridden per project by
/// `passwords.scrypt.projects` entries `"<projectId>=<N>:<r>:<p>"`. Stored hashes carry their own
/// parameters, so changing a project's only affects passwords set afterwards.
struct PasswordHashers: Sendable {
    let standard: PasswordHasher
    let byProject: [String: PasswordHasher]
    /// A hash of a random password per parameter set, checked when an email is unknown so the
    /// answer takes as long as for a known one.
    private let decoys: [String: String]

    struct InvalidEntry: Error, CustomStringConvertible {
        let entry: String
        var description: String {
            "passwords.scrypt.projects entry \"\(entry)\" is not <projectId>=<N>:<r>:<p> with N a power of two within limits"
        }
    }

    init(standard: PasswordHasher, projectEntries: [String]) throws {
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

    func decoy(for projectId: String) -> String { decoys[byProject[projectId] == nil ? "" : projectId] ?? decoys[""]! }
}
