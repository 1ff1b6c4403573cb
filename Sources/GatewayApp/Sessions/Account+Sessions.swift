import Contracts

/// What the ID-token prelude and the token endpoint both ask of an account about a sign-in.
extension Account {
    /// Whether the account was created after a sign-in at `authTime` (seconds): then the sign-in
    /// was a deleted account's whose uid this one was given. Both times come from factor-registry's
    /// database clock; tokens count whole seconds.
    func postdates(signInAt authTime: Int64) -> Bool {
        guard let createdAt = Int64(createdAt) else { return false }
        return authTime < createdAt / 1000
    }

    /// Whether the account still has the second factor a sign-in passed (decision 4).
    func lists(factor enrollmentId: String) -> Bool {
        mfaInfo?.contains { $0.mfaEnrollmentId == enrollmentId } == true
    }
}
