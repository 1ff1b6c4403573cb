import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit

/// Step-up (docs/mfa-policy.md): with the scope's `stepUpMaxAge` set, a user who has a second factor
/// must have passed one within that many seconds to withdraw or enroll a factor, change the email or
/// password, link a provider or delete the account. The ID token carries the time
/// (`firebase.second_factor_auth_time`), which a refresh keeps and only a sign-in through a factor
/// (or an enrollment) moves. The refusal is `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`: the SDKs surface it as
/// `auth/requires-recent-login`, and their reauthentication ends in the MFA resolver, whose
/// finished sign-in carries a fresh time.
enum StepUp {
    static func require(_ user: SignedInUser, now: Date = Date()) throws {
        guard let maxAge = user.settings.mfaConfig.stepUpMaxAgeSeconds, !(user.account.mfaInfo ?? []).isEmpty else { return }
        try requireSecondFactor(within: maxAge, user, now: now)
    }

    /// A second factor passed within `maxAge` seconds, whatever the scope's policy (recovery codes
    /// are shown only to a session that just passed one).
    static func requireSecondFactor(within maxAge: Int64, _ user: SignedInUser, now: Date = Date()) throws {
        guard let passed = user.token.secondFactorAuthTime, EpochSeconds(now) - passed <= maxAge else {
            throw IdentityToolkitError(.credentialTooOldLoginAgain)
        }
    }
}
