import JSONRPC

/// `account.import`: the Admin SDKs' `importUsers` (`accounts:batchCreate`, contract §2.17). Up to
/// 1000 accounts; a bad account is reported by index and the others are still imported. Whole-request
/// errors: `MISSING_USER_ACCOUNT`, `MAXIMUM_USER_COUNT_EXCEEDED`, `DUPLICATE_LOCAL_ID : <id>`,
/// `DUPLICATE_EMAIL : <email>` (with `sanityCheck`), `INVALID_HASH_ALGORITHM : …`.
public enum ImportAccounts: RPCMethod {
    public static let name = "account.import"
    /// Never batched: it hashes passwords by the thousand (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var users: [ImportedAccount]
        /// Replace accounts whose `localId` exists instead of reporting them.
        public var allowOverwrite: Bool
        /// Refuse the whole request when two accounts share an email.
        public var sanityCheck: Bool
        /// How `passwordHash` values were made; required when any account has one.
        public var hash: PasswordHashParameters?

        public init(
            projectId: String, tenantId: String? = nil, users: [ImportedAccount], allowOverwrite: Bool = false,
            sanityCheck: Bool = false, hash: PasswordHashParameters? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.users = users
            self.allowOverwrite = allowOverwrite
            self.sanityCheck = sanityCheck
            self.hash = hash
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// One entry per account not imported; empty when all were.
        public var errors: [Failure]

        public init(errors: [Failure]) { self.errors = errors }
    }

    public struct Failure: Codable, Sendable, Hashable {
        public var index: Int
        public var message: String

        public init(index: Int, message: String) {
            self.index = index
            self.message = message
        }
    }
}

/// One account of an import, in Identity Toolkit's `UserInfo` spelling.
public struct ImportedAccount: Codable, Sendable, Hashable {
    public var localId: String?
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var photoUrl: String?
    public var disabled: Bool?
    public var phoneNumber: String?
    public var customAttributes: String?
    /// base64 or base64url, made with the request's `hash` parameters.
    public var passwordHash: String?
    public var salt: String?
    /// A clear-text password to hash here (the emulator's `rawPassword`).
    public var rawPassword: String?
    /// Milliseconds since the epoch, as strings.
    public var createdAt: String?
    public var lastLoginAt: String?
    /// The account's own `tenantId`, which must match the request's.
    public var tenantId: String?
    /// Phone second factors (`kind` is ignored: only phone factors can be imported); an empty
    /// `mfaEnrollmentId` gets a fresh one, an empty `enrolledAt` the import time. A TOTP factor
    /// cannot be imported (its secret would have to be exported first), and `phoneNumber` absent
    /// means such an item: `Second factor not supported.`
    public var mfaInfo: [Enrollment]?
    /// The account's identity-provider users (Google, Apple, `oidc.…`), linked as they were: the
    /// provider's subject is `rawId` (Google's `federatedId` URL is read for it when `rawId` is absent).
    public var providerUserInfo: [FederatedIdentity]?

    public init(
        localId: String? = nil, email: String? = nil, emailVerified: Bool? = nil, displayName: String? = nil,
        disabled: Bool? = nil, phoneNumber: String? = nil, customAttributes: String? = nil, passwordHash: String? = nil,
        salt: String? = nil, rawPassword: String? = nil, createdAt: String? = nil, lastLoginAt: String? = nil,
        tenantId: String? = nil, mfaInfo: [Enrollment]? = nil, photoUrl: String? = nil, providerUserInfo: [FederatedIdentity]? = nil
    ) {
        self.providerUserInfo = providerUserInfo
        self.photoUrl = photoUrl
        self.mfaInfo = mfaInfo
        self.localId = localId
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.disabled = disabled
        self.phoneNumber = phoneNumber
        self.customAttributes = customAttributes
        self.passwordHash = passwordHash
        self.salt = salt
        self.rawPassword = rawPassword
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
        self.tenantId = tenantId
    }
}

/// The hash parameters of an import. `STANDARD_SCRYPT` (`cpuMemCost` = N, `blockSize` = r,
/// `parallelization` = p, `dkLen`) is what this server stores natively and is accepted.
public struct PasswordHashParameters: Codable, Sendable, Hashable {
    /// v1 `hashAlgorithm`: `SCRYPT` (Firebase's), `STANDARD_SCRYPT`, `BCRYPT`, `PBKDF_SHA1`,
    /// `PBKDF2_SHA256`, `HMAC_SHA512`/`256`/`1`/`MD5`, `MD5`, `SHA1`/`256`/`512`.
    public var algorithm: String
    public var cpuMemCost: Int?
    public var blockSize: Int?
    public var parallelization: Int?
    public var dkLen: Int?
    /// Base64: the HMAC key, or Firebase scrypt's project signer key.
    public var signerKey: String?
    /// Base64: Firebase scrypt's salt separator.
    public var saltSeparator: String?
    public var rounds: Int?
    /// Firebase scrypt's memory cost (N = 2^memoryCost).
    public var memoryCost: Int?
    /// `SALT_AND_PASSWORD`, `PASSWORD_AND_SALT` or `UNSPECIFIED_ORDER`.
    public var passwordHashOrder: String?

    public init(
        algorithm: String, cpuMemCost: Int? = nil, blockSize: Int? = nil, parallelization: Int? = nil, dkLen: Int? = nil,
        signerKey: String? = nil, saltSeparator: String? = nil, rounds: Int? = nil, memoryCost: Int? = nil,
        passwordHashOrder: String? = nil
    ) {
        self.algorithm = algorithm
        self.cpuMemCost = cpuMemCost
        self.blockSize = blockSize
        self.parallelization = parallelization
        self.dkLen = dkLen
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
        self.passwordHashOrder = passwordHashOrder
    }
}
