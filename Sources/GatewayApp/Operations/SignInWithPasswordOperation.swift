import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:signInWithPassword` (contract §2.2): request checks in order (`MISSING_EMAIL`,
/// `INVALID_EMAIL`, `MISSING_PASSWORD`), then the credentials at factor-registry, then tokens.
/// The MFA branch (pending credential and `mfaInfo` instead of tokens) slots in between the
/// credential check and the tokens; under MANDATORY a user without a factor gets an
/// enrollment-only session (MandatoryEnrollment).
struct SignInWithPasswordOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>
    let functions: BlockingFunctions
    /// Decision 19's default while a project has not set `emailPrivacyConfig` (production: on).
    let emailPrivacyByDefault: Bool

    /// The answers that tell an unknown email from a wrong password (or a disabled account).
    static let revealing: Set<IdentityToolkitError.Code> = [.emailNotFound, .invalidPassword, .userDisabled]

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(SignInWithPasswordRequest.self)
        let projectId = request.callerProjectId
        let tenantId = body.tenantId
        let settings = try await scopeSettings.enabled(projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        if !settings.allowPasswordSignup { throw IdentityToolkitError(.passwordLoginDisabled) }
        if body.idToken != nil || body.pendingIdToken != nil {
            throw IdentityToolkitError.notImplemented("identitytoolkit.accounts.signInWithPassword with idToken")
        }
        guard let email = body.email else { throw IdentityToolkitError(.missingEmail) }
        guard EmailSyntax.isPlausible(email) else { throw IdentityToolkitError(.invalidEmail) }
        guard let password = body.password.nonEmpty else {
            throw IdentityToolkitError(.missingPassword)
        }
        let signIn: VerifyPassword.Result
        do {
            signIn = try await PeerCall.call(
                registry, VerifyPassword.self,
                .init(
                    projectId: projectId, tenantId: tenantId, email: email, password: password,
                    secondFactorKinds: SecondFactorPolicy.requiredKinds(settings), clientAddress: request.clientAddress
                ),
                requestID: request.requestID
            )
        } catch let error as IdentityToolkitError where error.code.map(Self.revealing.contains) == true {
            // Email enumeration protection: one answer for every credential failure.
            if settings.improvedEmailPrivacy ?? emailPrivacyByDefault {
                throw IdentityToolkitError(.invalidLoginCredentials)
            }
            throw error
        }
        let account = signIn.account
        // A policy with `forceUpgradeOnSignin`: the right password that misses it must be changed
        // first (the SDKs then ask for a new one); told only once the password proved right.
        if settings.passwordPolicy?.forceUpgradeOnSignin == true { try settings.requirePasswordPolicy(password) }
        if signIn.secondFactorRequired == true {
            // The MFA branch (§2.2): a pending credential and the factors as hints, no tokens.
            let pending = try await PeerCall.call(
                sessions, IssuePendingCredential.self,
                .init(projectId: projectId, tenantId: tenantId, localId: account.localId, signInProvider: .password),
                requestID: request.requestID
            )
            let answer = SignInWithPasswordResponse(
                localId: account.localId, email: account.email ?? email, displayName: account.displayName,
                mfaPendingCredential: pending.mfaPendingCredential, mfaInfo: MFAInfo.entries(account.mfaInfo ?? [], masked: true)
            )
            return try request.answer(answer)
        }
        let signedIn = try await functions.beforeSignIn(
            account, settings: settings, projectId: projectId, tenantId: tenantId, signInMethod: "password", request: request
        )
        let enrollmentOnlyUntil = try MandatoryEnrollment.sessionEnd(settings, account: signedIn.account, signInProvider: .password)
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: account.localId, signInProvider: .password,
                authTime: signIn.lastLoginAt,
                user: SessionUser(signedIn.account), sessionClaims: signedIn.sessionClaims, enrollmentOnlyUntil: enrollmentOnlyUntil
            ),
            requestID: request.requestID
        )
        let answer = SignInWithPasswordResponse(
            localId: account.localId, email: account.email ?? email, displayName: signedIn.account.displayName
        )
        return try request.answer(answer.carrying(tokens))
    }
}

/// The gateway's first look at an email (factor-registry applies the full check): `INVALID_EMAIL`
/// must come before `MISSING_PASSWORD`, so the shape is checked here.
enum EmailSyntax {
    static func isPlausible(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && email.utf8.count <= 256
            && email.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
    }
}
