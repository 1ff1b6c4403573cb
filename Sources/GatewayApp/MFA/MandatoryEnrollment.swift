import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit

/// MANDATORY MFA as this server enforces it (docs/mfa-policy.md; Identity Platform documents no
/// effect of the state). A user with a factor passes it, as under ENABLED. A user without one gets,
/// after a first factor that can carry a second, an enrollment-only session: its ID token says so
/// (`firebase.mfa_enrollment_required`, `firebase.mfa_enrollment_deadline`), and the gateway
/// accepts it only to look the user up, verify the email and enroll a factor. That lasts until
/// the scope's grace period, counted from the later of the account's creation and the moment the
/// scope became MANDATORY, has run out; after it the sign-in itself is refused.
///
/// Both refusals are `OPERATION_NOT_ALLOWED`, which every SDK surfaces with its detail
/// (web: `auth/operation-not-allowed` with the detail as the message; iOS: `operationNotAllowed`).
/// The detail starts with `MFA_ENROLLMENT_REQUIRED` so an app can tell these from others.
enum MandatoryEnrollment {
    static let enrollFirst = IdentityToolkitError(
        .operationNotAllowed, detail: "MFA_ENROLLMENT_REQUIRED: enroll a second factor before anything else.")
    static let gracePassed = IdentityToolkitError(
        .operationNotAllowed,
        detail: "MFA_ENROLLMENT_REQUIRED: the time to enroll a second factor has run out; an administrator must restore access.")

    /// The end of the enrollment-only session a first-factor sign-in (not a link) of `account`
    /// gets, or `nil` for a full session. Throws ``gracePassed`` once the grace period has run out.
    static func sessionEnd(
        _ settings: AuthSettings, account: Account, signInProvider: SignInProvider, now: Date = Date()
    ) throws -> EpochSeconds? {
        let mfa = settings.mfaConfig
        guard mfa.isMandatory, !SecondFactorPolicy.unsupportedFirstFactors.contains(signInProvider),
            (account.mfaInfo ?? []).isEmpty
        else { return nil }
        let deadline = graceEnd(mfa, account: account)
        guard EpochSeconds(now) < deadline else { throw gracePassed }
        return deadline
    }

    /// When `account`'s grace period ends: counted from the later of its creation and the scope's
    /// `mandatorySince`, both milliseconds.
    static func graceEnd(_ mfa: MultiFactorConfig, account: Account) -> EpochSeconds {
        let created = EpochSeconds(milliseconds: Int64(account.createdAt) ?? 0)
        let mandatory = EpochSeconds(milliseconds: mfa.mandatorySince ?? 0)
        return max(created, mandatory) + mfa.enrollmentGracePeriod
    }
}
