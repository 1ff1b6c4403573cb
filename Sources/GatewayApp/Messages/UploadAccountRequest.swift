/// `…/accounts:batchCreate` (importUsers): accounts with their password hashes.
struct UploadAccountRequest: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1UploadAccountRequest"
    var tenantId: String?
    var users: [UserInfo]?
    var hashAlgorithm: String?
    var cpuMemCost: Int?
    var blockSize: Int?
    var parallelization: Int?
    var dkLen: Int?
    var allowOverwrite: Bool?
    var sanityCheck: Bool?
}

/// One imported account.
struct UserInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1UserInfo"
    var localId: String?
    var tenantId: String?
    var email: String?
    var emailVerified: Bool?
    var displayName: String?
    var disabled: Bool?
    var phoneNumber: String?
    var customAttributes: String?
    /// Base64, as the hash and salt are stored.
    var passwordHash: String?
    var salt: String?
    var rawPassword: String?
    /// Milliseconds since the epoch (int64 as a string).
    var createdAt: String?
    var lastLoginAt: String?
    var mfaInfo: [MFAEnrollment]?
}
