import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import ServiceKit

/// `v2/accounts/mfaEnrollment:start|finalize|withdraw` (contract §2.8-§2.10, decisions 3, 4, 8, 9):
/// what every kind of factor shares (the user's checks, the record, the sessions, the notice). The
/// kind is the one whose member the request carries (`totpEnrollmentInfo`, `totpVerificationInfo`),
/// else phone; what differs per kind is its ``SecondFactorKind``.
struct MFAEnrollmentOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>
    let challenges: PeerClient<ChallengeIssuerAPI>
    let kinds: SecondFactorKinds
    let recentLogin: RecentLogin
    /// The notice of a new factor, with its `REVERT_SECOND_FACTOR_ADDITION` link.
    let mail: OutOfBandMail
    let logger: Logger

    // MARK: start

    func start(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(StartMFAEnrollmentRequest.self)
        let settings = try await prelude(body, request)
        let kind = kinds.kind { $0.isNamed(by: body) }
        try kind.requireEnabled(settings)
        let user = try await SignedInUser.resolve(
            body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings, allowingEnrollmentOnly: true)
        try SecondFactorPolicy.checkFirstFactor(user.token.signInProvider)
        try recentLogin.require(user)
        guard user.account.emailVerified else {
            throw IdentityToolkitError(.unverifiedEmail, detail: "Need to verify email first before enrolling second factors.")
        }
        return try await request.answer(kind.startEnrollment(body, user: user, settings: settings, request: request))
    }

    // MARK: finalize

    func finalize(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(FinalizeMFAEnrollmentRequest.self)
        let settings = try await prelude(body, request)
        let kind = kinds.kind { $0.isNamed(by: body) }
        try kind.requireEnabled(settings)
        // The enrollment this session becomes, the same on a retry (FinalizeAttempt); an exact retry
        // (decision 22: the same session and code) finds it already saved, passes the checks of a
        // new factor and gets the first answer's session again; anything else is refused.
        let enrollmentId = type(of: kind).session(of: body).map(FinalizeAttempt.enrollmentId(finishing:)) ?? RandomIdentifier.make()
        let user = try await SignedInUser.resolve(
            body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings, retrying: enrollmentId,
            allowingEnrollmentOnly: true
        )
        try SecondFactorPolicy.checkFirstFactor(user.token.signInProvider)
        let (projectId, tenantId, localId) = (user.token.projectId, user.token.tenantId, user.account.localId)
        let retried = user.account.lists(factor: enrollmentId)
        var enrollment = try await kind.finishEnrollment(
            body, user: user, enrollmentId: enrollmentId, settings: settings,
            checkLimit: { if !retried { try checkLimit(user.account) } }, request: request
        )
        enrollment.displayName = body.displayName
        // Decision 3: a new second factor ends every other session. ID tokens end by validSince,
        // which has one-second resolution like `iat`: the enrollment's commit sets it to the second
        // after the enrollment, and the new tokens are minted once that second has begun, so every
        // older token (iat before it) fails and the new ones (iat at it) work. Enrollment waits for
        // that boundary (half a second on average). A retry finds the factor saved and nothing moves.
        let revoked = try await PeerCall.call(
            registry, AddEnrollment.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: localId,
                enrollment: enrollment, revokeSessions: true
            ),
            requestID: request.requestID
        )
        try await SessionBoundary.awaitStart(of: revoked.validSince)
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: localId, signInProvider: user.token.signInProvider,
                secondFactor: enrollment.kind, secondFactorIdentifier: enrollmentId, authTime: user.token.authTime,
                user: SessionUser(revoked), revokeOtherSessions: true, finishesEnrollment: true,
                // Proving the new factor is passing a second factor (step-up), and ends an
                // enrollment-only session (MANDATORY): the new one is a full session.
                secondFactorAuthTime: .now, firstFactorIdentifier: user.token.firstFactorIdentifier
            ),
            requestID: request.requestID
        )
        if !retried {
            await NewFactorNotice(mail: mail, logger: logger).send(
                factorId: enrollment.mfaEnrollmentId, named: type(of: kind).newFactor(enrollment), account: revoked, projectId: projectId,
                tenantId: tenantId, request: request
            )
        }
        return try request.answer(FinalizeMFAEnrollmentResponse(tokens))
    }

    // MARK: withdraw

    /// Decision 4: the sessions established with the factor end; if the caller's is one of them,
    /// the answer has no tokens and its tokens now fail with `TOKEN_EXPIRED`.
    func withdraw(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(WithdrawMFARequest.self)
        _ = try await prelude(body, request)
        let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings)
        try recentLogin.require(user)
        let (projectId, tenantId, localId) = (user.token.projectId, user.token.tenantId, user.account.localId)
        guard let enrollmentId = body.mfaEnrollmentId.nonEmpty,
            let withdrawn = user.account.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentId })
        else { throw IdentityToolkitError(.mfaEnrollmentNotFound) }
        let account = try await PeerCall.call(
            registry, RemoveEnrollment.self,
            .init(projectId: projectId, tenantId: tenantId, localId: localId, mfaEnrollmentId: enrollmentId),
            requestID: request.requestID
        )
        // The last factor takes its recovery codes with it (factor-registry removes both).
        let removed = (user.account.mfaInfo ?? []).filter { !account.lists(factor: $0.mfaEnrollmentId) }
        try await AccountErasure(sessions: sessions, challenges: challenges).forgetFactors(
            removed.isEmpty ? [withdrawn] : removed, projectId: projectId, tenantId: tenantId, localId: localId,
            requestID: request.requestID
        )
        if let current = user.token.secondFactorIdentifier, removed.contains(where: { $0.mfaEnrollmentId == current }) {
            return [:]
        }
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: localId, signInProvider: user.token.signInProvider,
                authTime: user.token.authTime, user: SessionUser(account), firstFactorIdentifier: user.token.firstFactorIdentifier
            ),
            requestID: request.requestID
        )
        // The contract's answer (§2.10) has `expiresIn` beside the two tokens, which the discovery
        // document's WithdrawMfaResponse lacks: written by hand, not as that message.
        return ["idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken), "expiresIn": .string(tokens.expiresIn)]
    }

    // MARK: shared

    /// `PROJECT_DISABLED` first, in the tenant the body or the (not yet verified) token names.
    private func prelude(_ body: some SignedInRequest, _ request: PublicRequest) async throws -> AuthSettings {
        let projectId = request.callerProjectId
        let tenantId = body.tenantId ?? RoutingHint.tenant(ofIDToken: body.idToken)
        return try await scopeSettings.enabled(projectId: projectId, tenantId: tenantId, requestID: request.requestID)
    }

    private func checkLimit(_ account: Account) throws {
        if (account.mfaInfo?.count ?? 0) >= MFAEnrollmentOperations.maximumFactors {
            throw IdentityToolkitError(.secondFactorLimitExceeded)
        }
    }

    /// Decision 8; factor-registry enforces the same limit (`enrollments.maximum`) under a lock.
    static let maximumFactors = 5
}
