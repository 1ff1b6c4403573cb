import IdentityToolkit

/// Issue 39 (H-1, M-6): a signed-in user adding a way in (an email by link, an email and
/// password, a phone number) is as sensitive as changing the email: whoever holds only a stolen
/// refresh token must not be able to add their own address and take the account. So a link needs
/// a recent sign-in (decision 18's window), except on an anonymous account, whose refresh token
/// is its only credential (it has nothing to sign in with again, and nothing to take). A link
/// never replaces what the account has: an account with an address, or a number, answers
/// `PROVIDER_ALREADY_LINKED` (what Identity Platform answers, and the SDKs' `auth/provider-already-linked`);
/// changing either is the update flows' business, with their notices.
struct AccountLinking: Sendable {
    let recentLogin: RecentLogin

    enum Adds {
        case email(String)
        case phoneNumber(String)
        /// A provider's user (factor-registry refuses a second one of the same provider).
        case identityProvider
    }

    func requireAllowed(_ user: SignedInUser, adding: Adds) throws {
        switch adding {
        case .email(let email):
            if let current = user.account.email, EmailAddressText.differ(current, email) {
                throw IdentityToolkitError(.providerAlreadyLinked)
            }
        case .phoneNumber(let number):
            if let current = user.account.phoneNumber, current != number { throw IdentityToolkitError(.providerAlreadyLinked) }
        case .identityProvider:
            break
        }
        let anonymous =
            user.token.signInProvider == .anonymous && user.account.email == nil && user.account.phoneNumber == nil
            && user.account.federatedIdentities == nil
        if !anonymous { try recentLogin.require(user) }
    }
}
