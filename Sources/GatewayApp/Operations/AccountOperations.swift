import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:lookup` and `v1/accounts:delete` for the signed-in user (contract §2.3, §2.6).
/// The Admin SDKs' privileged forms (by `localId`, `email`, …) come with the admin endpoints.
struct AccountOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>
    let recentLogin: RecentLogin
    let codes: OOBCodeApplication
    /// Decision 19's default while a project has not set `emailPrivacyConfig` (production: on).
    let emailPrivacyByDefault: Bool

    func lookup(_ request: PublicRequest, admin: AdminAccountOperations) async throws -> JSONValue {
        // With an admin credential and no idToken it is the Admin SDKs' lookup by id or email.
        let body = try request.decode(GetAccountInfoRequest.self)
        if request.caller == .admin, body.idToken == nil { return try await admin.lookup(body, request) }
        let user = try await SignedInUser.resolve(
            body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings, allowingEnrollmentOnly: true)
        var info = UserInfo(user.account, tenantId: user.token.tenantId)
        // Passkeys are read only where the scope has them on: no extra call on anyone else's lookup.
        if user.settings.passkeyConfig != nil {
            let listed = try await PeerCall.call(
                registry, ListPasskeys.self,
                .init(projectId: user.token.projectId, tenantId: user.token.tenantId, localIds: [user.account.localId]),
                requestID: request.requestID
            )
            info.adding(passkeys: listed.passkeys)
        }
        return try request.answer(GetAccountInfoResponse(users: [info]))
    }

    func delete(_ request: PublicRequest, admin: AdminAccountOperations) async throws -> JSONValue {
        let body = try request.decode(DeleteAccountRequest.self)
        if request.caller == .admin, body.idToken == nil { return try await admin.delete(body, request) }
        let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings)
        try recentLogin.require(user)
        let (projectId, tenantId, localId) = (user.token.projectId, user.token.tenantId, user.account.localId)
        let account = AccountsToForget(projectId: projectId, tenantId: tenantId, localIds: [localId])
        try await admin.erasure.deleting(account, requestID: request.requestID) {
            _ = try await PeerCall.call(
                registry, DeleteAccount.self, .init(projectId: projectId, tenantId: tenantId, localId: localId),
                requestID: request.requestID
            )
        }
        return try request.answer(DeleteAccountResponse())
    }

    /// `v1/accounts:update` (§2.4). With an admin credential and no `idToken` it is the Admin SDK's
    /// update; otherwise the signed-in user changes their own profile. A password or email change
    /// ends every earlier session and answers with fresh tokens.
    func update(_ request: PublicRequest, admin: AdminAccountOperations) async throws -> JSONValue {
        let body = try request.decode(SetAccountInfoRequest.self)
        if request.caller == .admin, body.idToken == nil, body.oobCode == nil {
            return try await admin.update(body, request)
        }
        guard body.idToken != nil || body.oobCode != nil else {
            throw IdentityToolkitError(.invalidReqType, detail: "Unsupported request parameters.")
        }
        if body.customAttributes != nil { throw IdentityToolkitError(.insufficientPermission) }
        if body.idToken == nil, let oobCode = body.oobCode {
            return try await applyOobCode(oobCode, tenantId: body.tenantId, request)
        }
        let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings)
        if body.disableUser != nil { throw IdentityToolkitError(.operationNotAllowed) }
        let email = body.email
        let password = body.password
        // Unlinking is as sensitive as linking (issue 56, F-12): a stolen refresh token must not
        // strip the owner's other ways in.
        let unlinked = body.deleteProvider ?? []
        let passkeys = body.deletePasskey ?? []
        if email != nil || password != nil || !unlinked.isEmpty || !passkeys.isEmpty { try recentLogin.require(user) }
        if let password { try user.settings.requirePasswordPolicy(password) }
        // With email enumeration protection a new address must be proved first
        // (`sendOobCode VERIFY_AND_CHANGE_EMAIL`), as Identity Platform requires.
        if email != nil, user.settings.improvedEmailPrivacy ?? emailPrivacyByDefault {
            throw IdentityToolkitError(.operationNotAllowed, detail: "Please verify the new email before changing email.")
        }
        let deleted = body.deleteAttribute ?? []
        // The SDKs' `unlink`: the phone number, or a provider's user; the password stays (it is the
        // account's email and password, not a link), and the account keeps a way in.
        let account = try await PeerCall.call(
            registry, UpdateAccount.self,
            .init(
                projectId: user.token.projectId, tenantId: user.token.tenantId, localId: user.account.localId,
                email: email, password: password, displayName: body.displayName,
                deleteDisplayName: deleted.contains("DISPLAY_NAME"), deletePhoneNumber: unlinked.contains("phone") ? true : nil,
                photoUrl: body.photoUrl, deletePhotoUrl: deleted.contains("PHOTO_URL"), unlinkProviders: Self.federated(unlinked),
                keepWayIn: unlinked.isEmpty ? nil : true
            ),
            requestID: request.requestID
        )
        var removedPasskeys: [String] = []
        if !passkeys.isEmpty {
            removedPasskeys = try await PasskeyOperations.remove(
                passkeys, of: account.localId, projectId: user.token.projectId, tenantId: user.token.tenantId, registry: registry,
                sessions: sessions, requestID: request.requestID
            )
        }
        var answer = SetAccountInfoResponse(account)
        if let email, let previous = user.account.email, EmailAddressText.differ(previous, email) {
            try await codes.noticeEmailChange(
                localId: account.localId, from: previous, proved: user.account.emailVerified, to: email,
                projectId: user.token.projectId, tenantId: user.token.tenantId, apiKey: request.apiKey, locale: request.locale,
                requestID: request.requestID
            )
        }
        if email != nil || password != nil || !passkeys.isEmpty {
            // Every earlier session ended; this one begins after them. (After a passkey's deletion
            // the answer's tokens are the caller's session renewed, as the iOS SDK expects.)
            try await SessionBoundary.awaitStart(of: account.validSince)
            // The renewed session is still the passkey's that started it, unless that one just went (the
            // ids as stored: the request may spell them in either base64 alphabet).
            let renewedFirstFactor = user.token.firstFactorIdentifier.flatMap { first in
                PasskeyCredential.credentialId(factorIdentifier: first).map(removedPasskeys.contains) == true ? nil : first
            }
            let tokens = try await PeerCall.call(
                sessions, IssueSession.self,
                .init(
                    projectId: user.token.projectId, tenantId: user.token.tenantId, localId: account.localId,
                    signInProvider: user.token.signInProvider, authTime: user.token.authTime,
                    user: SessionUser(account), firstFactorIdentifier: renewedFirstFactor
                ),
                requestID: request.requestID
            )
            answer = answer.carrying(tokens)
        }
        return try request.answer(answer)
    }

    /// The codes `{oobCode}` alone applies (the SDKs' `applyActionCode`). No tokens (§2.4).
    static let appliedByUpdate: [OOBRequestType] = [
        .verifyEmail, .verifyAndChangeEmail, .recoverEmail, .revertSecondFactorAddition, .revertPhoneNumberAddition,
    ]

    /// `{oobCode}` alone: a `VERIFY_EMAIL` code marks the email verified; `VERIFY_AND_CHANGE_EMAIL`
    /// changes it (and the old address is told, with a way back); `RECOVER_EMAIL` is that way back
    /// (the password and what was added since go; a password reset is mailed to the address);
    /// `REVERT_SECOND_FACTOR_ADDITION` removes a factor someone else added, and
    /// `REVERT_PHONE_NUMBER_ADDITION` a phone number someone else linked. The last four end every session.
    func applyOobCode(_ oobCode: String, tenantId: String?, _ request: PublicRequest) async throws -> JSONValue {
        let projectId = request.callerProjectId
        _ = try await scopeSettings.enabled(projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        let applied = try await codes.apply(
            oobCode, requestTypes: Self.appliedByUpdate, projectId: projectId, tenantId: tenantId, apiKey: request.apiKey,
            locale: request.locale, requestID: request.requestID
        )
        return try request.answer(SetAccountInfoResponse(applied.account))
    }

    /// The provider ids of `deleteProvider` that name identity providers (not `password` or `phone`).
    static func federated(_ providers: [String]) -> [String]? {
        let federated = providers.filter { ![SignInProvider.password, .phone].contains(SignInProvider(rawValue: $0)) }
        return federated.isEmpty ? nil : federated
    }
}
