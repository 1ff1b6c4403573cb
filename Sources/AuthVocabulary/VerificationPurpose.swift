/// What an SMS code is for: the verification session challenge-issuer opens, and what the code's
/// check then counts and records. The raw values are the wire's and the database's spelling
/// (`sms.start`/`sms.verify` `purpose`, the verification session's `purpose` column), unchanged.
public enum VerificationPurpose: String, Codable, Sendable, CaseIterable, Hashable {
    /// Enrolling a phone as a second factor (`mfaEnrollment:start`).
    case enroll
    /// A phone second factor at sign-in (`mfaSignIn:start`): the account's, audited as a second factor.
    case signIn
    /// The phone as the first factor (`sendVerificationCode`, `signInWithPhoneNumber`).
    case phoneSignIn

    /// `beforeSendSms`'s `sms_type` for a code of this purpose (Identity Platform's blocking functions).
    public var smsType: String {
        switch self {
        case .enroll: "MULTI_FACTOR_ENROLLMENT"
        case .signIn: "MULTI_FACTOR_SIGN_IN"
        case .phoneSignIn: "SIGN_IN_OR_SIGN_UP"
        }
    }
}
