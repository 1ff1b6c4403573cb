/// `mfa` of an admin update: the factors that replace the account's (none removes them all).
struct MFAEnrollmentList: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1MfaInfo"
    var enrollments: [MFAEnrollment]?
}

/// One second factor: as an admin gives it (`mfa.enrollments`, an imported user's `mfaInfo`), and
/// as an answer shows it (`mfaInfo`, contract §3.2).
struct MFAEnrollment: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1MfaEnrollment"
    var mfaEnrollmentId: String?
    var displayName: String?
    var phoneInfo: String?
    /// The whole number, in lookup and admin answers (whose `phoneInfo` shows it whole too).
    var unobfuscatedPhoneInfo: String?
    var enrolledAt: String?
    /// Present for a TOTP factor.
    var totpInfo: TOTPInfo?
}

/// `totpInfo` of a factor: its presence names the kind. Empty in answers; an import may give the
/// factor's shared secret (this server's extension), which is never answered.
struct TOTPInfo: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1TotpInfo"
    var sharedSecretKey: String?
}
