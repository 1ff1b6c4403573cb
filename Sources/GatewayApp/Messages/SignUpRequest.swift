/// `v1/accounts:signUp` (contract §2.1), and createUser on `v1/projects/{p}[/tenants/{t}]/accounts`.
struct SignUpRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV1SignUpRequest"
    var tenantId: String?
    var targetProjectId: String?
    /// An upgrade of the signed-in anonymous user.
    var idToken: String?
    var localId: String?
    var email: String?
    var password: String?
    var displayName: String?
    var emailVerified: Bool?
    var disabled: Bool?
    var phoneNumber: String?
    var photoUrl: String?
    /// Second factors, which only an admin credential may give.
    var mfaInfo: [MFAFactor]?
}

/// A phone factor a new account is created with (`mfaInfo` of a sign-up).
struct MFAFactor: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1MfaFactor"
    var displayName: String?
    var phoneInfo: String?
}
