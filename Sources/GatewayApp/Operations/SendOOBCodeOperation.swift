import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:sendOobCode` and its admin form (contract §2.5): a single-use code for
/// `VERIFY_EMAIL` (the signed-in user's address), `PASSWORD_RESET` and `EMAIL_SIGNIN` (an address
/// the caller names), or `VERIFY_AND_CHANGE_EMAIL` (the signed-in user's new address, which gets the
/// link). It is mailed through challenge-issuer's sender, or returned as a link to an admin that asks
/// (`returnOobLink`: the Admin SDKs' `generate…Link`).
struct SendOOBCodeOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>
    let mail: OutOfBandMail
    let recentLogin: RecentLogin
    /// Decision 19's default while a project has not set `emailPrivacyConfig` (production: on).
    let emailPrivacyByDefault: Bool
    let functions: BlockingFunctions

    /// The mails a `beforeSendEmail` function hears of, by request type: its `email_type`.
    static let emailTypes: [OOBRequestType: String] = [.emailSignIn: "EMAIL_SIGN_IN", .passwordReset: "PASSWORD_RESET"]

    static let requestTypes: Set<OOBRequestType> = [.verifyEmail, .passwordReset, .emailSignIn, .verifyAndChangeEmail]

    /// Who the code is for: the account (by id or email) and the scope.
    private struct Target {
        let projectId: String
        let tenantId: String?
        let localId: String?
        let email: String?
        let settings: AuthSettings
    }

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(GetOOBCodeRequest.self)
        let returnOobLink = body.returnOobLink ?? false
        if returnOobLink, request.caller != .admin { throw IdentityToolkitError(.insufficientPermission) }
        guard let named = body.requestType, named != "OOB_REQ_TYPE_UNSPECIFIED" else {
            throw IdentityToolkitError(.missingReqType)
        }
        let continueUrl = body.continueUrl
        if let continueUrl, !OOBLinkBuilder.isAbsolute(continueUrl) {
            throw IdentityToolkitError(.invalidContinueURI, detail: "((expected an absolute URI with valid scheme and host))")
        }
        guard let requestType = OOBRequestType(rawValue: named), Self.requestTypes.contains(requestType) else {
            throw IdentityToolkitError(.invalidReqType, detail: "\(named) is not a request type sendOobCode makes")
        }
        // A sign-in link must lead back into the app.
        if requestType == .emailSignIn, continueUrl == nil { throw IdentityToolkitError(.missingContinueURI) }
        let target = try await target(of: body, request, requestType: requestType)
        // Passwordless sign-in is a way in of its own: only where the project or tenant enabled it.
        if requestType == .emailSignIn, !target.settings.enableEmailLinkSignin {
            throw IdentityToolkitError(.operationNotAllowed)
        }
        try await scopeSettings.requireAuthorized(
            continueUrl: continueUrl, projectId: target.projectId, tenantId: target.tenantId, requestID: request.requestID
        )
        var newEmail: String?
        if requestType == .verifyAndChangeEmail {
            guard let given = body.newEmail.nonEmpty else {
                throw IdentityToolkitError(.missingNewEmail)
            }
            guard EmailSyntax.isPlausible(given) else { throw IdentityToolkitError(.invalidNewEmail) }
            newEmail = given
        }
        let protectsEnumeration =
            requestType == .passwordReset && request.caller != .admin
            && (target.settings.improvedEmailPrivacy ?? emailPrivacyByDefault)
        let made: OutOfBandMail.Made
        do {
            made = try await mail.make(
                .init(
                    projectId: target.projectId, tenantId: target.tenantId, requestType: requestType, localId: target.localId,
                    email: target.email, clientAddress: request.caller == .admin ? nil : request.clientAddress, newEmail: newEmail
                ),
                apiKey: request.apiKey, continueUrl: continueUrl, locale: request.locale, requestID: request.requestID
            )
        } catch let error as IdentityToolkitError where error.code == .userNotFound && requestType == .passwordReset {
            // Email enumeration protection: an unknown address is answered like a known one, and mailed nothing.
            if protectsEnumeration {
                return try request.answer(GetOOBCodeResponse(email: target.email ?? ""))
            }
            throw IdentityToolkitError(.emailNotFound)
        }
        if returnOobLink {
            // The admin delivers the link itself (Admin SDK generate…Link).
            return try request.answer(GetOOBCodeResponse(email: made.code.email, oobCode: made.code.oobCode, oobLink: made.link))
        }
        if protectsEnumeration {
            // Under enumeration protection a known address must not answer differently from an unknown
            // one, which gets no mail: not later (the mail server's round trip, ~10 ms), and not with a
            // 503 when the mail server is down. So the reset mail goes out after the answer; a failed
            // delivery is logged, and the user asks again (issue 39, L-2).
            // A function's refusal is told to nobody either: the mail just does not go.
            let (mail, logger) = (self.mail, request.logger)
            let (projectId, tenantId, recipient) = (target.projectId, target.tenantId, made.code.email)
            let (locale, requestID) = (request.locale, request.requestID)
            Task { [self] in
                do {
                    try await beforeSend(requestType, to: recipient, target: target, request: request)
                    try await mail.send(
                        made, requestType: requestType, to: recipient, projectId: projectId, tenantId: tenantId, locale: locale,
                        requestID: requestID
                    )
                } catch {
                    logger.error("password reset mail not delivered", metadata: ["request.id": "\(requestID)"])
                }
            }
            // The address as the caller wrote it, as an unknown one is answered: the stored spelling would tell.
            return try request.answer(GetOOBCodeResponse(email: target.email ?? made.code.email))
        }
        // An email change is confirmed from the new address; everything else goes to the account's.
        try await beforeSend(requestType, to: newEmail ?? made.code.email, target: target, request: request)
        try await mail.send(
            made, requestType: requestType, to: newEmail ?? made.code.email, projectId: target.projectId, tenantId: target.tenantId,
            locale: request.locale, requestID: request.requestID
        )
        return try request.answer(GetOOBCodeResponse(email: made.code.email))
    }

    /// `beforeSendEmail` for a client's sign-in link or password reset (a refusal: no mail).
    private func beforeSend(_ requestType: OOBRequestType, to email: String, target: Target, request: PublicRequest) async throws {
        guard request.caller != .admin, let emailType = Self.emailTypes[requestType] else { return }
        try await functions.beforeSendEmail(
            to: email, emailType: emailType, account: nil, settings: target.settings, projectId: target.projectId,
            tenantId: target.tenantId, request: request
        )
    }

    private func target(of body: GetOOBCodeRequest, _ request: PublicRequest, requestType: OOBRequestType) async throws -> Target {
        if request.caller == .admin, body.idToken == nil {
            let scope = try AdminScope(request, targetProjectId: body.targetProjectId, tenantId: body.tenantId)
            guard let email = body.email.nonEmpty else { throw IdentityToolkitError(.missingEmail) }
            let settings = try await scopeSettings.enabled(
                projectId: scope.projectId, tenantId: scope.tenantId, requestID: request.requestID
            )
            return Target(projectId: scope.projectId, tenantId: scope.tenantId, localId: nil, email: email, settings: settings)
        }
        if requestType == .verifyEmail || requestType == .verifyAndChangeEmail {
            // A missing token is an invalid one here (the emulator's answer, §2.5).
            guard body.idToken.nonEmpty != nil else { throw IdentityToolkitError(.invalidIDToken) }
            // Verifying the address is one of the things an enrollment-only session may do (the
            // enrollment needs a verified email); changing it is not.
            let user = try await SignedInUser.resolve(
                body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings,
                allowingEnrollmentOnly: requestType == .verifyEmail
            )
            if requestType == .verifyEmail {
                guard user.account.email != nil else { throw IdentityToolkitError(.missingEmail) }
            } else {
                // Decision 18: an email change needs a recent sign-in, like a direct one.
                try recentLogin.require(user)
            }
            return Target(
                projectId: user.token.projectId, tenantId: user.token.tenantId, localId: user.account.localId, email: nil,
                settings: user.settings
            )
        }
        // A password reset or a sign-in link: the caller names the address.
        let projectId = request.callerProjectId
        let tenantId = body.tenantId
        let settings = try await scopeSettings.enabled(projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        guard let email = body.email.nonEmpty else { throw IdentityToolkitError(.missingEmail) }
        guard EmailSyntax.isPlausible(email) else { throw IdentityToolkitError(.invalidEmail) }
        return Target(projectId: projectId, tenantId: tenantId, localId: nil, email: email, settings: settings)
    }
}
