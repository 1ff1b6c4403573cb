import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:signUp` for end users (API key): an email/password account, or an anonymous one,
/// then its first tokens (contract §2.1).
struct SignUpOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>
    let admin: AdminAccountOperations
    let linking: AccountLinking
    let functions: BlockingFunctions

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        // With an admin credential it is createUser, as on /v1/projects/{p}/accounts.
        let body = try request.decode(SignUpRequest.self)
        guard case .apiKey(let projectId) = request.caller else { return try await admin.create(body, request) }
        let settings = try await scopeSettings.enabled(
            projectId: projectId, tenantId: body.tenantId, requestID: request.requestID
        )
        if body.targetProjectId != nil {
            throw IdentityToolkitError.targetProjectNeedsAdmin
        }
        if body.localId != nil { throw IdentityToolkitError.unexpectedUserID }
        if let factors = body.mfaInfo, !factors.isEmpty {
            // A client may not give itself second factors it never proved (production semantics).
            throw IdentityToolkitError(.insufficientPermission, detail: "((mfaInfo can only be set with an admin credential.))")
        }
        if body.idToken != nil { return try await upgrade(body, request, settings: settings) }
        if body.email != nil || body.password != nil {
            guard body.email.nonEmpty != nil else { throw IdentityToolkitError(.missingEmail) }
            guard body.password.nonEmpty != nil else { throw IdentityToolkitError(.missingPassword) }
            if !settings.allowPasswordSignup { throw IdentityToolkitError(.operationNotAllowed) }
            try settings.requirePasswordPolicy(body.password ?? "")
        } else if !settings.enableAnonymousUser {
            throw IdentityToolkitError(.adminOnlyOperation)
        }
        let tenantId = body.tenantId
        // Under MANDATORY with no grace at all, nobody could ever finish signing up: refused before
        // an account is made.
        if settings.mfaConfig.isMandatory, settings.mfaConfig.enrollmentGracePeriod == 0, body.email != nil {
            throw MandatoryEnrollment.gracePassed
        }
        var account = try await PeerCall.call(
            registry, SignUpAccount.self,
            .init(
                projectId: projectId, tenantId: tenantId, email: body.email, password: body.password,
                displayName: body.displayName,
                clientAddress: request.clientAddress,
                holdNewAccount: body.email != nil
                    ? try await functions.holdsNewAccounts(settings, projectId: projectId, tenantId: tenantId, requestID: request.requestID)
                    : nil
            ),
            requestID: request.requestID
        )
        // Anonymous users call no function (as in Identity Platform); an email sign-up calls both.
        var sessionClaims: [String: JSONValue]?
        if account.signInProvider == .password {
            account = try await functions.beforeCreate(
                account, settings: settings, projectId: projectId, tenantId: tenantId, signInMethod: "password", request: request
            )
            let signIn = try await functions.beforeSignIn(
                account, settings: settings, projectId: projectId, tenantId: tenantId, signInMethod: "password", request: request
            )
            (account, sessionClaims) = (signIn.account, signIn.sessionClaims)
        }
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: account.localId, signInProvider: account.signInProvider,
                // The sign-up is the sign-in, at the account's creation (by factor-registry's clock,
                // which SignedInUser compares with).
                authTime: Int64(account.createdAt).map { EpochSeconds(milliseconds: $0) } ?? .now,
                user: SessionUser(account), sessionClaims: sessionClaims,
                enrollmentOnlyUntil: try MandatoryEnrollment.sessionEnd(settings, account: account, signInProvider: account.signInProvider)
            ),
            requestID: request.requestID
        )
        return try request.answer(SignUpResponse(account).carrying(tokens))
    }

    /// `signUp` with an `idToken`: the signed-in anonymous user gets an email and password and
    /// keeps their `localId` (the JS SDK's `linkWithCredential` for email/password). Earlier tokens
    /// end; the answer carries new ones whose first factor is `password`. Any other account needs
    /// a recent sign-in for it (AccountLinking).
    private func upgrade(_ body: SignUpRequest, _ request: PublicRequest, settings: AuthSettings) async throws -> JSONValue {
        let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings)
        guard let email = body.email.nonEmpty else { throw IdentityToolkitError(.missingEmail) }
        guard let password = body.password.nonEmpty else {
            throw IdentityToolkitError(.missingPassword)
        }
        if !settings.allowPasswordSignup { throw IdentityToolkitError(.operationNotAllowed) }
        if user.account.email != nil { throw IdentityToolkitError(.providerAlreadyLinked) }
        try settings.requirePasswordPolicy(password)
        try linking.requireAllowed(user, adding: .email(email))
        let account = try await PeerCall.call(
            registry, UpdateAccount.self,
            .init(
                projectId: user.token.projectId, tenantId: user.token.tenantId, localId: user.account.localId, email: email,
                password: password, displayName: body.displayName
            ),
            requestID: request.requestID
        )
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: user.token.projectId, tenantId: user.token.tenantId, localId: account.localId,
                signInProvider: .password, authTime: user.token.authTime, user: SessionUser(account),
                enrollmentOnlyUntil: try MandatoryEnrollment.sessionEnd(settings, account: account, signInProvider: .password)
            ),
            requestID: request.requestID
        )
        return try request.answer(SignUpResponse(account).carrying(tokens))
    }
}
