/// A kind of second factor: what an enrollment is, what a factor provider serves, and the ID token's
/// `sign_in_second_factor`. The raw values are the wire's and the database's spelling, unchanged.
public enum FactorKind: String, Codable, Sendable, CaseIterable, Hashable {
    /// A code by SMS to the enrolled number (Identity Toolkit's `phoneInfo`).
    case phone
    /// An authenticator app's time-based code (Identity Toolkit's `totpInfo`).
    case totp
    /// A set of one-time recovery codes, shown to clients as a TOTP-shaped factor
    /// (docs/mfa-policy.md); never served by a factor provider.
    case recoveryCode = "recovery_code"
}
