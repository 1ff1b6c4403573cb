/// One account: as an import gives it (`users` of a batch create), and as lookups answer with it.
struct UserInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1UserInfo"
    var localId: String?
    var tenantId: String?
    var email: String?
    var emailVerified: Bool?
    var displayName: String?
    var photoUrl: String?
    var disabled: Bool?
    var phoneNumber: String?
    var customAttributes: String?
    /// Base64, as the hash and salt are stored; answers show a redacted one, as production does.
    var passwordHash: String?
    var salt: String?
    var rawPassword: String?
    /// Milliseconds since the epoch (int64 as a string).
    var createdAt: String?
    var lastLoginAt: String?
    /// Seconds since the epoch (int64 as a string): tokens issued before it are refused.
    var validSince: String?
    var providerUserInfo: [ProviderUserInfo]?
    var mfaInfo: [MFAEnrollment]?
    /// The account's passkeys (issue 59), where its scope has them on.
    var passkeyInfo: [PasskeyInfo]?
}

/// One passkey of a user record: the id the browser reports (base64url) and its name.
struct PasskeyInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1PasskeyInfo"
    var credentialId: String?
    var name: String?
}

/// One way an account signs in (`password` with its email, `phone` with its number).
struct ProviderUserInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1ProviderUserInfo"
    var providerId: String?
    var federatedId: String?
    var rawId: String?
    var email: String?
    var phoneNumber: String?
    var displayName: String?
    var photoUrl: String?
}
