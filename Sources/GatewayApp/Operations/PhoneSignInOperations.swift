import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC
import Logging
import ServiceKit

/// The phone as a first factor (contract §2.13): `v1/accounts:sendVerificationCode` sends
/// a code with the same app verification, test numbers, region policy and send limits as an MFA
/// SMS; `v1/accounts:signInWithPhoneNumber` finishes with `{sessionInfo, code}` (or a
/// `temporaryProof`), signing in the number's account (created the first time), or with `idToken`
/// linking the number to the signed-in user. A user with second factors can never use a phone as
/// the first factor. Tenants are refused (`UNSUPPORTED_TENANT_OPERATION`), as the contract says.
struct PhoneSignInOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>
    let challenges: PeerClient<ChallengeIssuerAPI>
    let phone: PhoneChallenges
    let linking: AccountLinking
    /// The notice of a linked number to the account's address, with its `REVERT_PHONE_NUMBER_ADDITION` link.
    let mail: OutOfBandMail
    /// `signIn.phoneNumber.enabled` while a project has not set it (ModeDefaults).
    let enabledByDefault: Bool
    let logger: Logger
    let functions: BlockingFunctions

    /// What the phone session's check is for; it has no user yet.
    static let purpose = VerificationPurpose.phoneSignIn

    func sendVerificationCode(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(SendVerificationCodeRequest.self)
        let settings = try await prelude(tenantId: body.tenantId, request)
        // Production answers this, not MISSING_…, for an absent number too.
        guard let number = body.phoneNumber, PhoneNumber.isValid(number) else {
            throw IdentityToolkitError.invalidPhoneNumberFormat
        }
        // No code for a number whose account has second factors: it could never sign in with it.
        let holders = try await PeerCall.call(
            registry, FindAccounts.self, .init(projectId: request.callerProjectId, phoneNumbers: [number]), requestID: request.requestID
        )
        if holders.accounts.contains(where: { $0.mfaInfo?.isEmpty == false }) {
            throw IdentityToolkitError.phoneFirstFactorOnMFAUser
        }
        let sessionInfo = try await phone.start(
            number: number, purpose: Self.purpose, account: nil, proof: body.proof, settings: settings, projectId: request.callerProjectId,
            tenantId: nil, request: request
        )
        return try request.answer(SendVerificationCodeResponse(sessionInfo: sessionInfo))
    }

    func signInWithPhoneNumber(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(SignInWithPhoneNumberRequest.self)
        let settings = try await prelude(tenantId: body.tenantId, request)
        let projectId = request.callerProjectId
        let number: String
        var proven = false
        if let proof = body.temporaryProof.nonEmpty {
            guard let given = body.phoneNumber, PhoneNumber.isValid(given) else {
                throw IdentityToolkitError.invalidPhoneNumberFormat
            }
            _ = try await PeerCall.call(
                challenges, RedeemPhoneProof.self, .init(projectId: projectId, phoneNumber: given, temporaryProof: proof),
                requestID: request.requestID
            )
            (number, proven) = (given, true)
        } else {
            guard let sessionInfo = body.sessionInfo.nonEmpty else {
                throw IdentityToolkitError(.missingSessionInfo)
            }
            guard let code = body.code.nonEmpty else { throw IdentityToolkitError(.missingCode) }
            number = try await phone.verify(
                sessionInfo: sessionInfo, code: code, purpose: Self.purpose, localId: "", projectId: projectId, tenantId: nil,
                attempt: nil, request: request
            )
        }
        if body.idToken != nil, !proven {
            return try await link(number, body, request)
        }
        let signIn = try await PeerCall.call(
            registry, SignInWithPhone.self,
            .init(
                projectId: projectId, phoneNumber: number, clientAddress: request.clientAddress,
                holdNewAccount: try await functions.holdsNewAccounts(
                    settings, projectId: projectId, tenantId: nil, requestID: request.requestID)
            ),
            requestID: request.requestID
        )
        var account = signIn.account
        if signIn.isNewUser {
            account = try await functions.beforeCreate(
                account, settings: settings, projectId: projectId, tenantId: nil, signInMethod: "phone", request: request
            )
        }
        let signedIn = try await functions.beforeSignIn(
            account, settings: settings, projectId: projectId, tenantId: nil, signInMethod: "phone", request: request
        )
        return try await answer(
            signedIn.account, number: number, isNewUser: signIn.isNewUser, authTime: signIn.lastLoginAt, projectId: projectId,
            sessionClaims: signedIn.sessionClaims, request: request
        )
    }

    /// The verified number becomes the signed-in user's, after a recent sign-in unless the account
    /// is anonymous, and never in place of another number (AccountLinking). Another account's number is not taken:
    /// the answer is a `temporaryProof` with which the client may sign in to that account instead
    /// (the SDKs raise "credential already in use" with it).
    private func link(_ number: String, _ body: SignInWithPhoneNumberRequest, _ request: PublicRequest) async throws -> JSONValue {
        let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings)
        let (projectId, localId) = (user.token.projectId, user.account.localId)
        if user.account.mfaInfo?.isEmpty == false { throw IdentityToolkitError.phoneFirstFactorOnMFAUser }
        try linking.requireAllowed(user, adding: .phoneNumber(number))
        // The number it already has: nothing changes, so nothing is recorded or mailed.
        if user.account.phoneNumber == number {
            return try await answer(
                user.account, number: number, isNewUser: false, authTime: user.token.authTime, projectId: projectId, request: request
            )
        }
        let linked: Account
        do {
            linked = try await PeerCall.call(
                registry, UpdateAccount.self, .init(projectId: projectId, localId: localId, phoneNumber: number),
                requestID: request.requestID
            )
        } catch let error as IdentityToolkitError where error.code == .phoneNumberExists {
            let proof = try await PeerCall.call(
                challenges, IssuePhoneProof.self, .init(projectId: projectId, phoneNumber: number), requestID: request.requestID
            )
            return try request.answer(SignInWithPhoneNumberResponse(phoneNumber: number, temporaryProof: proof.temporaryProof))
        }
        if let email = linked.email {
            await noticeLinkedNumber(number, account: linked, email: email, request: request)
        }
        return try await answer(
            linked, number: number, isNewUser: false, authTime: user.token.authTime, projectId: projectId, request: request)
    }

    /// The account's address hears that a number can now sign in, with a link that removes it and
    /// ends every session (issue 39, M-6): a number linked with a stolen session is the owner's to
    /// undo, as a new second factor or an email change is. A notice that cannot be sent does not
    /// undo the link; the log says so (as for a new factor's notice).
    private func noticeLinkedNumber(_ number: String, account: Account, email: String, request: PublicRequest) async {
        do {
            let made = try await mail.make(
                .init(
                    projectId: request.callerProjectId, requestType: .revertPhoneNumberAddition, localId: account.localId,
                    phoneNumber: number
                ),
                apiKey: request.apiKey, continueUrl: nil, locale: request.locale, requestID: request.requestID
            )
            try await mail.send(
                made, requestType: .revertPhoneNumberAddition, to: email, projectId: request.callerProjectId, tenantId: nil,
                linkedPhoneEnding: String(number.suffix(4)), locale: request.locale, requestID: request.requestID
            )
        } catch {
            logger.warning("linked-number notice not sent", metadata: ["request.id": "\(request.requestID)"])
        }
    }

    private func answer(
        _ account: Account, number: String, isNewUser: Bool, authTime: EpochSeconds, projectId: String,
        sessionClaims: [String: JSONValue]? = nil, request: PublicRequest
    ) async throws -> JSONValue {
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, localId: account.localId, signInProvider: .phone, authTime: authTime, user: SessionUser(account),
                sessionClaims: sessionClaims
            ),
            requestID: request.requestID
        )
        let answer = SignInWithPhoneNumberResponse(localId: account.localId, isNewUser: isNewUser, phoneNumber: number)
        return try request.answer(answer.carrying(tokens))
    }

    /// `PROJECT_DISABLED` first, then the tenant refusal, then the project's switch
    /// (`signIn.phoneNumber.enabled`): nothing is sent or created while it is off.
    private func prelude(tenantId: String?, _ request: PublicRequest) async throws -> AuthSettings {
        let settings = try await scopeSettings.enabled(
            projectId: request.callerProjectId, tenantId: tenantId, requestID: request.requestID
        )
        if tenantId != nil { throw IdentityToolkitError(.unsupportedTenantOperation) }
        guard settings.phoneSignIn ?? enabledByDefault else { throw IdentityToolkitError(.operationNotAllowed) }
        return settings
    }
}
