import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:signInWithIdp` (contract §2.2's MFA branch; the rest as Identity Platform answers,
/// docs/identity-providers.md): `PROJECT_DISABLED`, `MISSING_REQUEST_URI`, the `idToken` prelude
/// when linking, then factor-registry verifies the provider's credential and finds, creates or
/// links the account. A user with a second factor gets the MFA branch (the pending credential's
/// first factor is the provider); a linked or signed-in user gets tokens whose `sign_in_provider`
/// is the provider and whose `firebase.identities` lists it.
struct SignInWithIdpOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>
    let linking: AccountLinking
    let functions: BlockingFunctions

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(SignInWithIdpRequest.self)
        let projectId = request.callerProjectId
        let settings = try await scopeSettings.enabled(projectId: projectId, tenantId: body.tenantId, requestID: request.requestID)
        if body.pendingIdToken != nil {
            throw IdentityToolkitError.notImplemented("identitytoolkit.accounts.signInWithIdp with pendingIdToken")
        }
        guard let requestUri = body.requestUri.nonEmpty else { throw IdentityToolkitError(.missingRequestURI) }
        var user: SignedInUser?
        if body.idToken.nonEmpty != nil {
            let signedIn = try await SignedInUser.resolve(
                body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings)
            try linking.requireAllowed(signedIn, adding: .identityProvider)
            user = signedIn
        }
        let tenantId = user?.token.tenantId ?? body.tenantId
        let result = try await PeerCall.call(
            registry, SignInWithIdp.self,
            .init(
                projectId: projectId, tenantId: tenantId, requestUri: requestUri, postBody: body.postBody, sessionId: body.sessionId,
                pendingToken: body.pendingToken.nonEmpty, linkTo: user?.account.localId,
                secondFactorKinds: SecondFactorPolicy.requiredKinds(settings), returnIdpCredential: body.returnIdpCredential,
                clientAddress: request.clientAddress,
                holdNewAccount: user == nil
                    ? try await functions.holdsNewAccounts(settings, projectId: projectId, tenantId: tenantId, requestID: request.requestID)
                    : nil
            ),
            requestID: request.requestID
        )
        var answer = Self.answer(result, tenantId: tenantId)
        guard var account = result.account, result.needConfirmation != true, result.errorMessage == nil else {
            return try request.answer(answer)
        }
        let providerId = result.identity.providerId
        answer.localId = account.localId
        if result.tookOver == true {
            // Whoever held the account through its unverified credentials is signed out everywhere.
            _ = try await PeerCall.call(
                sessions, ForgetAccountSessions.self, .init(projectId: projectId, tenantId: tenantId, localIds: [account.localId]),
                requestID: request.requestID
            )
            // The takeover ended every earlier session at the next second: this one begins after.
            try await SessionBoundary.awaitStart(of: account.validSince)
        }
        if result.secondFactorRequired == true {
            // The MFA branch (§2.2): the provider is the pending sign-in's first factor.
            let pending = try await PeerCall.call(
                sessions, IssuePendingCredential.self,
                .init(projectId: projectId, tenantId: tenantId, localId: account.localId, signInProvider: .federated(providerId)),
                requestID: request.requestID
            )
            answer.mfaPendingCredential = pending.mfaPendingCredential
            answer.mfaInfo = MFAInfo.entries(account.mfaInfo ?? [], masked: true)
            return try request.answer(answer)
        }
        // A new user's account is the function's to refuse or change; a sign-in and a link (which
        // Identity Platform also counts as one) call beforeSignIn.
        if result.isNewUser == true, user == nil {
            account = try await functions.beforeCreate(
                account, settings: settings, projectId: projectId, tenantId: tenantId, signInMethod: providerId, profile: result.identity,
                request: request
            )
        }
        let signedIn = try await functions.beforeSignIn(
            account, settings: settings, projectId: projectId, tenantId: tenantId, signInMethod: providerId, profile: result.identity,
            request: request
        )
        account = signedIn.account
        // A user without a factor under MANDATORY gets an enrollment-only session, also from a link
        // (an anonymous user's upgrade must not make a full session without a factor).
        let enrollmentOnlyUntil = try MandatoryEnrollment.sessionEnd(settings, account: account, signInProvider: .federated(providerId))
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: account.localId, signInProvider: .federated(providerId),
                // A link keeps the session's second factor: the user passed it when they signed in.
                secondFactor: user?.token.secondFactor, secondFactorIdentifier: user?.token.secondFactorIdentifier,
                authTime: user?.token.authTime ?? result.lastLoginAt ?? .now, user: SessionUser(account),
                sessionClaims: signedIn.sessionClaims, secondFactorAuthTime: user?.token.secondFactorAuthTime,
                enrollmentOnlyUntil: enrollmentOnlyUntil
            ),
            requestID: request.requestID
        )
        return try request.answer(answer.carrying(tokens))
    }

    /// What the answer says about the provider's user, whatever became of the sign-in.
    static func answer(_ result: SignInWithIdp.Result, tenantId: String?) -> SignInWithIdpResponse {
        let profile = result.identity
        var answer = SignInWithIdpResponse(
            providerId: profile.providerId, federatedId: FederatedID.of(profile.providerId, rawId: profile.rawId), email: profile.email,
            emailVerified: profile.emailVerified, displayName: profile.displayName, fullName: profile.displayName,
            firstName: profile.firstName, lastName: profile.lastName, photoUrl: profile.photoUrl, rawUserInfo: profile.rawUserInfo,
            oauthIdToken: profile.oauthIdToken, oauthAccessToken: profile.oauthAccessToken, oauthExpireIn: profile.oauthExpireIn,
            pendingToken: result.pendingToken, tenantId: tenantId, context: result.context
        )
        if result.isNewUser == true { answer.isNewUser = true }
        if result.needConfirmation == true {
            answer.needConfirmation = true
            answer.verifiedProvider = result.verifiedProvider
        }
        answer.errorMessage = result.errorMessage
        if let account = result.account, account.email != nil, account.email?.lowercased() == profile.email?.lowercased() {
            // The account's own verification of the address, as Identity Platform answers.
            answer.emailVerified = account.emailVerified
        }
        return answer
    }
}

/// Identity Toolkit's `federatedId`: Google's is its issuer URL and the subject, the others' the subject.
enum FederatedID {
    static func of(_ providerId: String, rawId: String) -> String {
        providerId == "google.com" ? "https://accounts.google.com/\(rawId)" : rawId
    }
}
