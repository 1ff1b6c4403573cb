import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:signInWithEmailLink`: the `EMAIL_SIGNIN` code for the address it was
/// sent to signs that account in (creating it the first time, `isNewUser`). An account with second
/// factors gets the MFA branch exactly as after a password: a pending credential and the factors as
/// hints, no tokens. The session's first factor is `password`, as Identity Platform names it.
struct SignInWithEmailLinkOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>
    let mail: OutOfBandMail
    let linking: AccountLinking
    let functions: BlockingFunctions

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(SignInWithEmailLinkRequest.self)
        let projectId = request.callerProjectId
        let tenantId = body.tenantId
        let settings = try await scopeSettings.enabled(projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        if !settings.enableEmailLinkSignin { throw IdentityToolkitError(.operationNotAllowed) }
        guard let email = body.email.nonEmpty else { throw IdentityToolkitError(.missingEmail) }
        guard EmailSyntax.isPlausible(email) else { throw IdentityToolkitError(.invalidEmail) }
        guard let oobCode = body.oobCode.nonEmpty else {
            throw IdentityToolkitError(.missingOOBCode)
        }
        // With `idToken` the address is linked to that user (an anonymous account's upgrade), if
        // the sign-in is recent and the account has no other address (AccountLinking).
        let user =
            body.idToken != nil
            ? try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings) : nil
        if let user { try linking.requireAllowed(user, adding: .email(email)) }
        let signIn = try await PeerCall.call(
            registry, SignInWithEmailLink.self,
            .init(
                projectId: projectId, tenantId: tenantId, oobCode: oobCode, email: email,
                secondFactorKinds: SecondFactorPolicy.requiredKinds(settings), linkTo: user?.account.localId,
                holdNewAccount: user == nil
                    ? try await functions.holdsNewAccounts(settings, projectId: projectId, tenantId: tenantId, requestID: request.requestID)
                    : nil
            ),
            requestID: request.requestID
        )
        await mail.forget(oobCode, projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        // The address's first proof ended every earlier session (AddressProof): this one begins after.
        try await SessionBoundary.awaitStart(of: signIn.account.validSince)
        var account = signIn.account
        var answer = SignInWithEmailLinkResponse(localId: account.localId, email: account.email ?? email, isNewUser: signIn.isNewUser)
        if signIn.secondFactorRequired == true {
            let pending = try await PeerCall.call(
                sessions, IssuePendingCredential.self,
                .init(projectId: projectId, tenantId: tenantId, localId: account.localId, signInProvider: .password),
                requestID: request.requestID
            )
            answer.mfaPendingCredential = pending.mfaPendingCredential
            answer.mfaInfo = MFAInfo.entries(account.mfaInfo ?? [], masked: true)
            return try request.answer(answer)
        }
        // A first sign-in makes the account (beforeCreate); linking an address is not a sign-in.
        var sessionClaims: [String: JSONValue]?
        if user == nil {
            if signIn.isNewUser {
                account = try await functions.beforeCreate(
                    account, settings: settings, projectId: projectId, tenantId: tenantId, signInMethod: "emailLink", request: request
                )
            }
            let signedIn = try await functions.beforeSignIn(
                account, settings: settings, projectId: projectId, tenantId: tenantId, signInMethod: "emailLink", request: request
            )
            (account, sessionClaims) = (signedIn.account, signedIn.sessionClaims)
        }
        // A link keeps the sign-in it was made in (its first and second factor), so linking never
        // makes a session that a factor's withdrawal would not end.
        let enrollmentOnlyUntil = try MandatoryEnrollment.sessionEnd(
            settings, account: account, signInProvider: user?.token.signInProvider ?? .password
        )
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: account.localId,
                signInProvider: user?.token.signInProvider ?? .password, secondFactor: user?.token.secondFactor,
                secondFactorIdentifier: user?.token.secondFactorIdentifier, authTime: user?.token.authTime ?? signIn.lastLoginAt,
                user: SessionUser(account), sessionClaims: sessionClaims, secondFactorAuthTime: user?.token.secondFactorAuthTime,
                enrollmentOnlyUntil: enrollmentOnlyUntil
            ),
            requestID: request.requestID
        )
        return try request.answer(answer.carrying(tokens))
    }
}
