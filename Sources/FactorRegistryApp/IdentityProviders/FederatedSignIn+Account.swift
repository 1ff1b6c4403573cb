import AsyncHTTPClient
import AuthVocabulary
import Contracts
import Crypto
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import TenantStore

/// Which account a verified provider user signs in to: found, created or linked by the rules above
/// (``FederatedSignIn``).
extension FederatedSignIn {
    func resolve(_ profile: ProviderProfile, params: SignInWithIdp.Params, schema: TenantSchema, pendingToken: String)
        async throws -> SignInWithIdp.Result
    {
        let repository = accounts.accounts
        if let linkTo = params.linkTo {
            guard try await identities.owner(in: schema, providerId: profile.providerId, rawId: profile.rawId) == nil else {
                throw IdentityToolkitError(.federatedUserIDAlreadyLinked)
            }
            guard let account = try await repository.account(in: schema, localId: linkTo),
                let full = try await repository.accounts(in: schema, localIds: [account.localId], emails: []).first
            else { throw IdentityToolkitError(.userNotFound) }
            if full.federatedIdentities?.contains(where: { $0.providerId == profile.providerId }) == true {
                throw IdentityToolkitError(.providerAlreadyLinked)
            }
            let adoption: FederatedIdentityRepository.Adoption
            if let email = profile.email {
                let holders = try await repository.accounts(in: schema, localIds: [], emails: [email])
                if holders.contains(where: { $0.localId != linkTo }) { throw IdentityToolkitError(.emailExists) }
                adoption =
                    full.email == nil
                    ? .email
                    : (profile.emailVerified && EmailAddress.normalized(full.email!) == EmailAddress.normalized(email)
                        ? .verifiedEmail : .none)
            } else {
                adoption = .none
            }
            try await linking(profile, to: linkTo, adoption, schema: schema)
            let linked = try await reread(linkTo, schema: schema)
            return .init(identity: profile, account: linked, isNewUser: false, lastLoginAt: nil, pendingToken: pendingToken)
        }
        if let owner = try await identities.owner(in: schema, providerId: profile.providerId, rawId: profile.rawId) {
            try await identities.refresh(profile, in: schema)
            return try await finish(try await reread(owner, schema: schema), profile, params, schema, isNewUser: false, pendingToken)
        }
        if let email = profile.email, let holder = try await repository.accounts(in: schema, localIds: [], emails: [email]).first {
            // Only a provider authoritative for the address verifies it (EmailTrust).
            guard profile.emailVerified else {
                // Whoever holds the account must sign in the way they do and link the provider then.
                let providers = (holder.federatedIdentities ?? []).map(\.providerId)
                return .init(identity: profile, needConfirmation: true, verifiedProvider: providers, pendingToken: pendingToken)
            }
            // A disabled account is taken by nobody, and keeps what it has.
            if holder.disabled { throw IdentityToolkitError(.userDisabled) }
            if holder.federatedIdentities?.contains(where: { $0.providerId == profile.providerId }) == true {
                // Another user of the same provider had this address before (a recycled email).
                return .init(identity: profile, needConfirmation: true, verifiedProvider: [profile.providerId], pendingToken: pendingToken)
            }
            try await linking(profile, to: holder.localId, holder.emailVerified ? .verifiedEmail : .takeOver(proof), schema: schema)
            var result = try await finish(
                try await reread(holder.localId, schema: schema), profile, params, schema, isNewUser: false, pendingToken
            )
            if !holder.emailVerified { result.tookOver = true }
            return result
        }
        return try await create(profile, params: params, schema: schema, pendingToken: pendingToken)
    }

    func create(_ profile: ProviderProfile, params: SignInWithIdp.Params, schema: TenantSchema, pendingToken: String) async throws
        -> SignInWithIdp.Result
    {
        try await accounts.limits.admitSignUp(schema)
        let localId = RandomIdentifier.make()
        do {
            _ = try await accounts.accounts.insert(
                in: schema, localId: localId, email: profile.email, passwordHash: nil, displayName: profile.displayName,
                emailVerified: profile.emailVerified, held: params.holdNewAccount == true, photoUrl: profile.photoUrl, signedIn: true
            )
        } catch is AccountRepository.EmailTaken {
            // A sign-in with the same address won the race: go through the rules again.
            return try await resolve(profile, params: params, schema: schema, pendingToken: pendingToken)
        }
        do {
            try await linking(profile, to: localId, .none, schema: schema)
        } catch let error as IdentityToolkitError where error.code == .federatedUserIDAlreadyLinked {
            // The same provider user's first sign-in twice at once: one account stays.
            _ = try await accounts.accounts.delete(in: schema, localId: localId)
            return try await resolve(profile, params: params, schema: schema, pendingToken: pendingToken)
        }
        let account = try await reread(localId, schema: schema)
        try await accounts.accounts.events.record(
            .signInSucceeded, localId: localId, details: ["factor": profile.providerId], in: schema
        )
        return .init(
            identity: profile, account: account, isNewUser: true, lastLoginAt: EpochSeconds(milliseconds: Int64(account.createdAt) ?? 0),
            pendingToken: pendingToken
        )
    }

    /// The sign-in of an existing account: refused when disabled; a second factor due, or recorded.
    func finish(
        _ account: Account, _ profile: ProviderProfile, _ params: SignInWithIdp.Params, _ schema: TenantSchema, isNewUser: Bool,
        _ pendingToken: String
    ) async throws -> SignInWithIdp.Result {
        let events = accounts.accounts.events
        if account.disabled {
            try await events.record(
                .signInFailed, localId: account.localId, details: ["factor": profile.providerId, "reason": "USER_DISABLED"], in: schema
            )
            throw IdentityToolkitError(.userDisabled)
        }
        let kinds = Set(params.secondFactorKinds ?? [])
        if account.mfaInfo?.contains(where: { kinds.contains($0.kind) }) == true {
            try await events.record(
                .signInSucceeded, localId: account.localId, details: ["factor": profile.providerId, "secondFactor": "required"],
                in: schema
            )
            return .init(
                identity: profile, account: account, isNewUser: isNewUser, lastLoginAt: 0, secondFactorRequired: true,
                pendingToken: pendingToken
            )
        }
        let lastLoginAt = try await accounts.accounts.recordSignIn(in: schema, localId: account.localId)
        try await events.record(.signInSucceeded, localId: account.localId, details: ["factor": profile.providerId], in: schema)
        return .init(identity: profile, account: account, isNewUser: isNewUser, lastLoginAt: lastLoginAt, pendingToken: pendingToken)
    }

    func linking(
        _ profile: ProviderProfile, to localId: String, _ adoption: FederatedIdentityRepository.Adoption, schema: TenantSchema
    ) async throws {
        do {
            try await identities.link(profile, to: localId, adopting: adoption, in: schema, events: accounts.accounts.events)
        } catch is FederatedIdentityRepository.AlreadyLinked {
            throw IdentityToolkitError(.federatedUserIDAlreadyLinked)
        } catch is FederatedIdentityRepository.ProviderTaken {
            throw IdentityToolkitError(.providerAlreadyLinked)
        } catch is AccountRepository.EmailTaken {
            throw IdentityToolkitError(.emailExists)
        }
    }

    /// The account with its enrollments and identities.
    func reread(_ localId: String, schema: TenantSchema) async throws -> Account {
        guard let account = try await accounts.accounts.accounts(in: schema, localIds: [localId], emails: []).first else {
            throw IdentityToolkitError(.userNotFound)
        }
        return account
    }
}
