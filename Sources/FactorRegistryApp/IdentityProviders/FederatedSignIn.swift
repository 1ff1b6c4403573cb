import AsyncHTTPClient
import Contracts
import Crypto
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import TenantStore

/// `account.signInWithIdp` and `idp.authorizationUri`: a provider's credential verified, then the
/// account found, created or linked by Identity Platform's rules for "one account per email
/// address" (docs/identity-providers.md):
/// 1. linking (a signed-in user): the provider user must be on no account
///    (`FEDERATED_USER_ID_ALREADY_LINKED`), the account must have no user of that provider
///    (`PROVIDER_ALREADY_LINKED`), and the provider's email no other account (`EMAIL_EXISTS`);
/// 2. a provider user already linked signs in to their account;
/// 3. an email of an existing account: a provider authoritative for the address (``EmailTrust``)
///    signs in to that account and links to it (taking it over when nobody verified its address);
///    anyone else gets `needConfirmation`: sign in the old way, then link;
/// 4. otherwise a new account.
struct FederatedSignIn: Sendable {
    let accounts: AccountService
    let identities: FederatedIdentityRepository
    /// A trusted provider's takeover is its address's first proof (issue 56).
    let proof: AddressProof
    let configs: IdentityProviderConfigService
    let verifier: ProviderTokenVerifier
    let codeFlow: AuthorizationCodeFlow
    let defaults: DefaultSupportedProviders
    let states: SealedClaims<AuthorizationState>
    let pending: SealedClaims<PendingIdentity>

    static let stateLifetime: Int64 = 600
    static let pendingTokenLifetime: Int64 = 3600

    init(
        accounts: AccountService, identities: FederatedIdentityRepository, proof: AddressProof, configs: IdentityProviderConfigService,
        directory: OpenIDProviderDirectory, client: HTTPClient, defaults: DefaultSupportedProviders, sealer: SecretSealer
    ) {
        self.accounts = accounts
        self.identities = identities
        self.proof = proof
        self.configs = configs
        self.verifier = ProviderTokenVerifier(directory: directory)
        self.codeFlow = AuthorizationCodeFlow(client: client)
        self.defaults = defaults
        self.states = SealedClaims(sealer: sealer, purpose: "idp-authorization-state")
        self.pending = SealedClaims(sealer: sealer, purpose: "idp-pending-token")
    }

    // MARK: The web flow's start

    func authorizationUri(_ params: CreateAuthorizationUri.Params) async throws -> CreateAuthorizationUri.Result {
        _ = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let stored = try await enabledConfig(params.projectId, params.tenantId, params.providerId)
        let (issuer, _) = try issuers(of: stored.config)
        let provider: OpenIDProviderDirectory.Provider
        do {
            provider = try await verifier.directory.provider(issuer: issuer)
        } catch {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider's discovery document could not be fetched.")
        }
        let nonce = Base64URL.random(byteCount: 24)
        let verifierText = Base64URL.random(byteCount: 32)
        let state = try states.seal(
            AuthorizationState(
                projectId: params.projectId, tenantId: params.tenantId, providerId: stored.config.providerId,
                sessionHash: Self.hash(params.sessionId), nonce: nonce, codeVerifier: verifierText, redirectUri: params.continueUri,
                context: params.context, expiresAt: Self.now + Self.stateLifetime
            )
        )
        let uri = try AuthorizationCodeFlow.authorizationURL(
            endpoint: provider.authorizationEndpoint ?? "", config: stored.config, state: state, nonce: nonce,
            codeVerifier: verifierText, redirectUri: params.continueUri, scopes: params.scopes ?? [],
            customParameters: params.customParameters ?? [:], responseModes: provider.responseModes, supportedScopes: provider.scopes
        )
        return .init(authUri: uri)
    }

    // MARK: Sign-in

    func signIn(_ params: SignInWithIdp.Params) async throws -> SignInWithIdp.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        try await accounts.limits.admit(address: params.clientAddress)
        let (profile, context) = try await verifiedProfile(params, schema: schema)
        let pendingToken = try mintPendingToken(
            profile, params, linkedTo: try await identities.owner(in: schema, providerId: profile.providerId, rawId: profile.rawId)
        )
        do {
            var result = try await resolve(profile, params: params, schema: schema, pendingToken: pendingToken)
            result.context = context
            // The sign-in linked the provider user (a new account, a link, a takeover): the token
            // is bound to that link from now on.
            if let account = result.account,
                account.federatedIdentities?.contains(where: { $0.providerId == profile.providerId && $0.rawId == profile.rawId }) == true
            {
                result.pendingToken = try mintPendingToken(profile, params, linkedTo: account.localId)
            }
            return result
        } catch let error as IdentityToolkitError
            where params.returnIdpCredential == true && [.federatedUserIDAlreadyLinked, .emailExists].contains(error.code)
        {
            // The SDKs' `credentialFromError`: the answer carries the credential instead of failing.
            return .init(identity: profile, errorMessage: error.code?.rawValue, pendingToken: pendingToken, context: context)
        }
    }

    private func mintPendingToken(_ profile: ProviderProfile, _ params: SignInWithIdp.Params, linkedTo: String?) throws -> String {
        try pending.seal(
            PendingIdentity(
                projectId: params.projectId, tenantId: params.tenantId, profile: profile.withoutTokens,
                expiresAt: Self.now + Self.pendingTokenLifetime, id: Base64URL.random(byteCount: 18), linkedTo: linkedTo
            )
        )
    }

    /// The provider user the request's credential proves, and the web flow's context.
    private func verifiedProfile(_ params: SignInWithIdp.Params, schema: TenantSchema) async throws -> (ProviderProfile, String?) {
        switch try ProviderCredential.read(requestUri: params.requestUri, postBody: params.postBody, pendingToken: params.pendingToken) {
        case .pending(let token):
            guard let identity = pending.open(token), identity.projectId == params.projectId, identity.tenantId == params.tenantId,
                identity.expiresAt > Self.now
            else { throw IdentityToolkitError(.invalidPendingToken) }
            // The provider may have been turned off since.
            _ = try await enabledConfig(params.projectId, params.tenantId, identity.profile.providerId)
            // Bound to the account state it was made for: a provider user unlinked since stays
            // unlinked (issue 56, F-11).
            if let linkedTo = identity.linkedTo,
                try await identities.owner(in: schema, providerId: identity.profile.providerId, rawId: identity.profile.rawId) != linkedTo
            {
                throw IdentityToolkitError(.invalidPendingToken)
            }
            // Single use, decision 22's spirit: the store of used nonces keeps its id until it expires.
            guard try await identities.use(nonce: identity.id, issuer: "pendingToken", expiresAt: identity.expiresAt) else {
                throw IdentityToolkitError(.invalidPendingToken)
            }
            return (identity.profile, nil)
        case .web(let stateText, let code, let idToken):
            guard let state = states.open(stateText), state.projectId == params.projectId, state.tenantId == params.tenantId,
                state.expiresAt > Self.now
            else { throw IdentityToolkitError(.invalidIdpResponse, detail: "The sign-in's state is unknown or has expired.") }
            guard let sessionId = params.sessionId, !sessionId.isEmpty else { throw IdentityToolkitError(.missingSessionID) }
            // The session the browser kept must be the one the flow began in; iOS's lite flow
            // began it with the session id's SHA-256 in hex.
            guard
                ProviderTokenVerifier.equal(Self.hash(sessionId), state.sessionHash)
                    || ProviderTokenVerifier.equal(Self.hash(Self.hex(sessionId)), state.sessionHash)
            else { throw IdentityToolkitError(.invalidIdpResponse, detail: "The sign-in's state belongs to another session.") }
            let stored = try await enabledConfig(params.projectId, params.tenantId, state.providerId)
            let (issuer, accepted) = try issuers(of: stored.config)
            let token: String
            var accessToken: String?
            var expiresIn: Int?
            if let code {
                let provider = try await verifier.directory.provider(issuer: issuer)
                let tokens: AuthorizationCodeFlow.Tokens = try await codeFlow.exchange(
                    code: code, endpoint: provider.tokenEndpoint ?? "", clientId: stored.config.clientId ?? "",
                    clientSecret: try await clientSecret(stored, projectId: params.projectId, tenantId: params.tenantId, issuer: issuer),
                    redirectUri: state.redirectUri, codeVerifier: state.codeVerifier
                )
                (token, accessToken, expiresIn) = (tokens.idToken, tokens.accessToken, tokens.expiresIn)
            } else if let idToken {
                token = idToken
            } else {
                throw IdentityToolkitError(
                    .invalidIdpResponse, detail: "The identity provider's response has neither a code nor an id_token.")
            }
            let verified = try await verifier.verify(
                token, providerId: stored.config.providerId, issuer: issuer, acceptedIssuers: accepted,
                audiences: audiences(of: stored.config), nonce: .exactly(state.nonce)
            )
            try await useNonce(verified)
            var profile = Self.trusting(verified, config: stored.config)
            profile.oauthAccessToken = accessToken
            profile.oauthExpireIn = expiresIn
            return (profile, state.context)
        case .native(let providerId, let idToken, _, let nonce):
            let stored = try await enabledConfig(params.projectId, params.tenantId, providerId)
            guard let idToken else {
                // An access token alone says nothing about whom it was issued to (token substitution).
                throw IdentityToolkitError(.invalidIdpResponse, detail: "An id_token is required to sign in with \(providerId).")
            }
            let (issuer, accepted) = try issuers(of: stored.config)
            let verified = try await verifier.verify(
                idToken, providerId: stored.config.providerId, issuer: issuer, acceptedIssuers: accepted,
                audiences: audiences(of: stored.config), nonce: .hashOf(nonce)
            )
            try await useNonce(verified)
            return (Self.trusting(verified, config: stored.config), nil)
        }
    }

    /// The verified profile, its address verified only where the provider is authoritative for it
    /// (``EmailTrust``); anyone else's `email_verified` is kept in `rawUserInfo` only.
    static func trusting(_ verified: ProviderTokenVerifier.Verified, config: IdentityProviderConfig) -> ProviderProfile {
        var profile = verified.profile
        if let email = profile.email, profile.emailVerified {
            profile.emailVerified = EmailTrust.vouches(
                for: email, providerId: profile.providerId, hostedDomain: verified.hostedDomain, config: config)
        }
        return profile
    }

    /// A token with a nonce signs in once: a replay (a stolen token, or a retried request) is refused.
    private func useNonce(_ verified: ProviderTokenVerifier.Verified) async throws {
        guard let nonce = verified.nonce else { return }
        guard try await identities.use(nonce: nonce, issuer: verified.issuer, expiresAt: verified.expiresAt + 60) else {
            throw IdentityToolkitError(
                .missingOrInvalidNonce, detail: "Duplicate credential received. Please try again with a new credential."
            )
        }
    }

    // MARK: Revocation

    func revoke(_ params: RevokeProviderToken.Params) async throws -> RPCEmpty {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        try await accounts.limits.admit(address: params.clientAddress)
        let stored = try await enabledConfig(params.projectId, params.tenantId, params.providerId)
        // Only a token of the user's own link: this server's client secret is no proxy for anyone else's.
        guard let account = try await accounts.accounts.accounts(in: schema, localIds: [params.localId], emails: []).first,
            account.federatedIdentities?.contains(where: { $0.providerId == stored.config.providerId }) == true
        else { throw IdentityToolkitError(.invalidProviderID, detail: "The user has no \(stored.config.providerId) link.") }
        let (issuer, _) = try issuers(of: stored.config)
        let provider: OpenIDProviderDirectory.Provider
        do {
            provider = try await verifier.directory.provider(issuer: issuer)
        } catch {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider's discovery document could not be fetched.")
        }
        guard let endpoint = provider.revocationEndpoint else {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider has no revocation endpoint.")
        }
        let secret = try await clientSecret(stored, projectId: params.projectId, tenantId: params.tenantId, issuer: issuer)
        let clientId = stored.config.clientId ?? ""
        var token = params.token
        var hint = params.tokenType == "ACCESS_TOKEN" ? "access_token" : "refresh_token"
        if params.tokenType == "CODE" {
            let tokens = try await codeFlow.exchange(
                code: params.token, endpoint: provider.tokenEndpoint ?? "", clientId: clientId, clientSecret: secret,
                redirectUri: params.redirectUri, codeVerifier: nil
            )
            guard let granted = tokens.refreshToken ?? tokens.accessToken else {
                throw IdentityToolkitError(.invalidIdpResponse, detail: "The code granted no token to revoke.")
            }
            (token, hint) = (granted, tokens.refreshToken != nil ? "refresh_token" : "access_token")
        }
        try await codeFlow.revoke(token: token, hint: hint, endpoint: endpoint, clientId: clientId, clientSecret: secret)
        return RPCEmpty()
    }

    // MARK: The account

    private func resolve(_ profile: ProviderProfile, params: SignInWithIdp.Params, schema: TenantSchema, pendingToken: String)
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

    private func create(_ profile: ProviderProfile, params: SignInWithIdp.Params, schema: TenantSchema, pendingToken: String) async throws
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
            identity: profile, account: account, isNewUser: true, lastLoginAt: (Int64(account.createdAt) ?? 0) / 1000,
            pendingToken: pendingToken
        )
    }

    /// The sign-in of an existing account: refused when disabled; a second factor due, or recorded.
    private func finish(
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

    private func linking(
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
    private func reread(_ localId: String, schema: TenantSchema) async throws -> Account {
        guard let account = try await accounts.accounts.accounts(in: schema, localIds: [localId], emails: []).first else {
            throw IdentityToolkitError(.userNotFound)
        }
        return account
    }

    // MARK: Configuration

    /// The provider's configuration, which must exist and be enabled (`OPERATION_NOT_ALLOWED`).
    private func enabledConfig(_ projectId: String, _ tenantId: String?, _ providerId: String) async throws
        -> IdentityProviderConfigRepository.Stored
    {
        let stored: IdentityProviderConfigRepository.Stored
        do {
            stored = try await configs.stored(projectId: projectId, tenantId: tenantId, providerId: providerId)
        } catch let error as RPCError where error.business?.code == .configurationNotFound {
            throw IdentityToolkitError(.operationNotAllowed, detail: "The identity provider configuration is not found.")
        }
        guard stored.config.enabled else {
            throw IdentityToolkitError(.operationNotAllowed, detail: "The identity provider configuration is disabled.")
        }
        return stored
    }

    /// Where the provider's keys are, and the `iss` values its tokens may carry.
    private func issuers(of config: IdentityProviderConfig) throws -> (String, Set<String>) {
        switch config.kind {
        case .oidc:
            guard let issuer = config.issuer else { throw IdentityToolkitError(.invalidConfig) }
            return (issuer, [issuer])
        case .defaultSupported:
            guard let issuer = defaults.issuers[config.providerId] else { throw IdentityToolkitError(.invalidProviderID) }
            return (issuer, defaults.acceptedIssuers(config.providerId))
        }
    }

    /// The client ids a token may be for: the configured one, and for Apple the apps' bundle ids.
    private func audiences(of config: IdentityProviderConfig) -> Set<String> {
        Set([config.clientId].compactMap { $0 } + (config.appleBundleIds ?? []))
    }

    private func clientSecret(_ stored: IdentityProviderConfigRepository.Stored, projectId: String, tenantId: String?, issuer: String)
        async throws -> String
    {
        if stored.config.providerId == DefaultSupportedProviders.apple,
            let key = try configs.applePrivateKey(stored, projectId: projectId, tenantId: tenantId),
            let team = stored.config.appleTeamId, let keyId = stored.config.appleKeyId
        {
            do {
                return try await AuthorizationCodeFlow.appleClientSecret(
                    privateKeyPEM: key, teamId: team, keyId: keyId, clientId: stored.config.clientId ?? "", audience: issuer
                )
            } catch {
                throw IdentityToolkitError(.invalidConfig, detail: "The Apple private key does not sign.")
            }
        }
        guard let secret = try configs.clientSecret(stored, projectId: projectId, tenantId: tenantId) else {
            throw IdentityToolkitError(.invalidConfig, detail: "The code flow needs a client secret.")
        }
        return secret
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    static func hash(_ text: String) -> String { Base64URL.encode(Array(SHA256.hash(data: Data(text.utf8)))) }

    static func hex(_ text: String) -> String { SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined() }
}

extension ProviderProfile {
    /// The profile without the provider's tokens: what a pending token keeps.
    var withoutTokens: ProviderProfile {
        var copy = self
        copy.oauthIdToken = nil
        copy.oauthAccessToken = nil
        copy.oauthExpireIn = nil
        copy.rawUserInfo = nil
        return copy
    }
}
