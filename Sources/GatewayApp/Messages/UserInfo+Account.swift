import AuthVocabulary
import Contracts

extension UserInfo {
    /// The account as lookups answer with it (contract §2.3): its password sign-in as a provider
    /// with a redacted hash, its number as another, every second factor unmasked.
    init(_ account: Account, tenantId: String?) {
        self.init(
            localId: account.localId, tenantId: tenantId, email: account.email, emailVerified: account.emailVerified,
            displayName: account.displayName, photoUrl: account.photoUrl, disabled: account.disabled,
            phoneNumber: account.phoneNumber, customAttributes: account.customAttributes,
            passwordHash: account.passwordSet == false ? nil : account.email.map { _ in Self.redactedHash }, createdAt: account.createdAt,
            lastLoginAt: account.lastLoginAt, validSince: account.validSince.map(String.init), providerUserInfo: [],
            mfaInfo: account.mfaInfo.map { MFAInfo.entries($0, masked: false) }
        )
        // An address that came with a provider is no way in by itself: no `password` entry without a
        // password (an email-link account has no provider, and keeps its entry).
        if let email = account.email, account.passwordSet != false || account.federatedIdentities == nil {
            providerUserInfo?.append(
                ProviderUserInfo(
                    providerId: SignInProvider.password.rawValue, federatedId: email, rawId: email, email: email,
                    displayName: account.displayName,
                    photoUrl: account.photoUrl
                )
            )
        }
        if let phone = account.phoneNumber {
            providerUserInfo?.append(ProviderUserInfo(providerId: SignInProvider.phone.rawValue, rawId: phone, phoneNumber: phone))
        }
        for identity in account.federatedIdentities ?? [] {
            providerUserInfo?.append(
                ProviderUserInfo(
                    providerId: identity.providerId, federatedId: FederatedID.of(identity.providerId, rawId: identity.rawId),
                    rawId: identity.rawId, email: identity.email, displayName: identity.displayName, photoUrl: identity.photoUrl
                )
            )
        }
    }

    /// "REDACTED", base64: what production shows for every stored hash.
    static let redactedHash = "UkVEQUNURUQ="

    /// The account's passkeys as `passkeyInfo`, and one `passkey` entry among its ways in: an
    /// anonymous account with a passkey is anonymous no more (the SDKs decide that from
    /// `providerUserInfo`).
    mutating func adding(passkeys: [PasskeyEntry]) {
        guard !passkeys.isEmpty else { return }
        passkeyInfo = passkeys.map { PasskeyInfo(credentialId: $0.credentialId, name: $0.name) }
        providerUserInfo = (providerUserInfo ?? []) + [ProviderUserInfo(providerId: SignInProvider.passkey.rawValue, rawId: localId)]
    }
}
