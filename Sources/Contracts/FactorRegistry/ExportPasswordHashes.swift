import JSONRPC

/// `passwords.export`: the project's password hash parameters (Identity Platform's `hashConfig`:
/// Firebase's scrypt, with the project's signer key) and the hashes of the named accounts in that
/// form, for an admin's `accounts:batchGet` and the config's `signIn.hashConfig`. An account whose
/// stored hash is not in the project's current form (an imported one not yet replaced by a sign-in,
/// one of older parameters) is left out: its password can only be exported after a sign-in.
public enum ExportPasswordHashes: RPCMethod {
    public static let name = "passwords.export"
    /// Never batched: it pages through every account (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localIds: [String]

        public init(projectId: String, tenantId: String? = nil, localIds: [String] = []) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localIds = localIds
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// Absent when the project's hashes are not Firebase's scrypt (`passwords.scrypt.parallelism` ≠ 1).
        public var hashConfig: PasswordHashConfig?
        public var hashes: [ExportedPasswordHash]

        public init(hashConfig: PasswordHashConfig?, hashes: [ExportedPasswordHash]) {
            self.hashConfig = hashConfig
            self.hashes = hashes
        }
    }
}

/// Identity Platform's `HashConfig`: what `accounts:batchCreate` (or `firebase auth:import`) needs
/// to take the exported hashes. Binary members are base64.
public struct PasswordHashConfig: Codable, Sendable, Hashable {
    public var algorithm: String
    public var signerKey: String
    public var saltSeparator: String
    public var rounds: Int
    public var memoryCost: Int

    public init(algorithm: String, signerKey: String, saltSeparator: String, rounds: Int, memoryCost: Int) {
        self.algorithm = algorithm
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
    }
}

/// One account's password as Identity Platform hands it out (URL-safe base64).
public struct ExportedPasswordHash: Codable, Sendable, Hashable {
    public var localId: String
    public var passwordHash: String
    public var salt: String

    public init(localId: String, passwordHash: String, salt: String) {
        self.localId = localId
        self.passwordHash = passwordHash
        self.salt = salt
    }
}
