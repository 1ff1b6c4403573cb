import Contracts

extension SignUpResponse {
    /// Every sign-up answers alike (an end user's, an upgrade, an admin's createUser): the
    /// account's id, its email and name where it has them.
    init(_ account: Account) {
        self.init(localId: account.localId, email: account.email, displayName: account.displayName)
    }
}
