import AuthVocabulary
import Contracts

/// What the ID-token prelude and the token endpoint both ask of an account about a sign-in.
extension Account {
    /// Whether the account was created after a sign-in at `authTime`: then the sign-in was a
    /// deleted account's whose uid this one was given. Both times come from factor-registry's
    /// database clock; tokens count whole seconds, `createdAt` milliseconds.
    func postdates(signInAt authTime: EpochSeconds) -> Bool {
        guard let createdAt = Int64(createdAt) else { return false }
        return authTime < EpochSeconds(milliseconds: createdAt)
    }

    /// The second of the last recorded sign-in (`lastLoginAt` is milliseconds, as a string); the
    /// epoch when none was recorded.
    var lastSignIn: EpochSeconds { EpochSeconds(milliseconds: lastLoginAt.flatMap { Int64($0) } ?? 0) }

    /// Whether the account still has the second factor a sign-in passed (decision 4).
    func lists(factor enrollmentId: String) -> Bool {
        mfaInfo?.contains { $0.mfaEnrollmentId == enrollmentId } == true
    }
}
