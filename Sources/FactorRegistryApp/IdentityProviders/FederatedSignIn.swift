import AsyncHTTPClient
import AuthVocabulary
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

    func mintPendingToken(_ profile: ProviderProfile, _ params: SignInWithIdp.Params, linkedTo: String?) throws -> String {
        try pending.seal(
            PendingIdentity(
                projectId: params.projectId, tenantId: params.tenantId, profile: profile.withoutTokens,
                expiresAt: Self.now + Self.pendingTokenLifetime, id: Base64URL.random(byteCount: 18), linkedTo: linkedTo
            )
        )
    }

    /// The provider user the request's credential proves, and the web flow's context.
    func verifiedProfile(_ params: SignInWithIdp.Params, schema: TenantSchema) async throws -> (ProviderProfile, String?) {
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
    func useNonce(_ verified: ProviderTokenVerifier.Verified) async throws {
        guard let nonce = verified.nonce else { return }
        guard try await identities.use(nonce: nonce, issuer: verified.issuer, expiresAt: verified.expiresAt + 60) else {
            throw IdentityToolkitError(
                .missingOrInvalidNonce, detail: "Duplicate credential received. Please try again with a new credential."
            )
        }
    }

    static var now: EpochSeconds { .now }

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
