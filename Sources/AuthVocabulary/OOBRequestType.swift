/// An out-of-band request type: what `accounts:sendOobCode` asks for, what an out-of-band code
/// does when applied, and the email that carries it. The raw values are Identity Toolkit's.
public enum OOBRequestType: String, Codable, Sendable, CaseIterable, Hashable {
    case verifyEmail = "VERIFY_EMAIL"
    case passwordReset = "PASSWORD_RESET"
    case emailSignIn = "EMAIL_SIGNIN"
    case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    /// To the old address after an email change, with a link that undoes it.
    case recoverEmail = "RECOVER_EMAIL"
    /// The notice of a new second factor, with a link that removes it.
    case revertSecondFactorAddition = "REVERT_SECOND_FACTOR_ADDITION"
    /// The notice of a phone number linked to the account as a way to sign in, with a link that
    /// removes it (not in Identity Platform; issue 39, M-6).
    case revertPhoneNumberAddition = "REVERT_PHONE_NUMBER_ADDITION"
    /// The notice of a recovery code used to sign in, with a password-reset link (not in Identity
    /// Platform; docs/mfa-policy.md).
    case recoveryCodeUsed = "RECOVERY_CODE_USED"
}
