import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import ServiceKit

/// `v2/accounts/mfaEnrollment:start|finalize|withdraw` (contract §2.8-§2.10, decisions 3, 4, 8, 9).
/// The TOTP variant is chosen by `totpEnrollmentInfo` / `totpVerificationInfo`; otherwise the
/// request is the phone variant.
struct MfaEnrollmentOperations: Sendable {
    let registry: RPCClient
    let sessions: RPCClient
    let challenges: RPCClient
    let phone: PhoneChallenges
    let recentLogin: RecentLogin
    /// The notice of a new factor, with its `REVERT_SECOND_FACTOR_ADDITION` link.
    let mail: OutOfBandMail
    let logger: Logger

    // MARK: start

    func start(_ request: PublicRequest) async throws -> JSONValue {
        let body = request.body
        let settings = try await prelude(request)
        let totp = body["totpEnrollmentInfo"] != nil && body["phoneEnrollmentInfo"] == nil
        if totp {
            guard settings.mfaConfig.totpAdjacentIntervals != nil else { throw IdentityToolkitError.totpMFADisabled }
        } else {
            guard settings.mfaConfig.smsEnabled else { throw IdentityToolkitError.smsMFADisabled }
        }
        let user = try await SignedInUser.resolve(request, registry: registry, sessions: sessions)
        try SecondFactorPolicy.checkFirstFactor(user.token.signInProvider)
        try recentLogin.require(user)
        guard user.account.emailVerified else {
            throw IdentityToolkitError(.unverifiedEmail, detail: "Need to verify email first before enrolling second factors.")
        }
        if totp {
            let started = try await PeerCall.call(
                challenges, StartTotpEnrollment.self,
                .init(projectId: user.token.projectId, tenantId: user.token.tenantId, localId: user.account.localId),
                requestID: request.requestID
            )
            return [
                "totpSessionInfo": [
                    "sharedSecretKey": .string(started.sharedSecretKey),
                    "verificationCodeLength": .int(Int64(started.verificationCodeLength)),
                    "hashingAlgorithm": .string(started.hashingAlgorithm), "periodSec": .int(Int64(started.periodSec)),
                    "sessionInfo": .string(started.sessionInfo), "finalizeEnrollmentTime": .string(started.finalizeEnrollmentTime),
                ]
            ]
        }
        guard let info = body["phoneEnrollmentInfo"], info != .null else {
            throw IdentityToolkitError(.invalidArgument, detail: "((Missing phoneEnrollmentInfo.))")
        }
        guard let number = info["phoneNumber"]?.stringValue, PhoneNumber.isValid(number) else {
            throw IdentityToolkitError.invalidPhoneNumberFormat
        }
        if user.account.mfaInfo?.contains(where: { $0.phoneNumber == number }) == true {
            throw IdentityToolkitError.phoneAlreadyEnrolled
        }
        let sessionInfo = try await phone.start(
            number: number, purpose: "enroll", localId: user.account.localId, proof: info, settings: settings,
            projectId: user.token.projectId, tenantId: user.token.tenantId, request: request
        )
        return ["phoneSessionInfo": ["sessionInfo": .string(sessionInfo)]]
    }

    // MARK: finalize

    func finalize(_ request: PublicRequest) async throws -> JSONValue {
        let body = request.body
        let settings = try await prelude(request)
        let totp = body["totpVerificationInfo"] != nil && body["phoneVerificationInfo"] == nil
        let intervals = settings.mfaConfig.totpAdjacentIntervals
        if totp {
            guard intervals != nil else { throw IdentityToolkitError.totpMFADisabled }
        } else {
            guard settings.mfaConfig.smsEnabled else { throw IdentityToolkitError.smsMFADisabled }
        }
        // The enrollment this session becomes, the same on a retry (FinalizeAttempt); a retry finds
        // it already saved and passes the checks of a new factor.
        let session = (totp ? body["totpVerificationInfo"]?["sessionInfo"] : body["phoneVerificationInfo"]?["sessionInfo"])?.stringValue
        let enrollmentId = session.map(FinalizeAttempt.enrollmentId(finishing:)) ?? RandomIdentifier.make()
        let user = try await SignedInUser.resolve(request, registry: registry, sessions: sessions, retrying: enrollmentId)
        try SecondFactorPolicy.checkFirstFactor(user.token.signInProvider)
        let (projectId, tenantId, localId) = (user.token.projectId, user.token.tenantId, user.account.localId)
        let retried = user.account.lists(factor: enrollmentId)
        let kind: String
        var phoneNumber: String?
        if totp {
            let info = body["totpVerificationInfo"]
            guard let code = info?["verificationCode"]?.stringValue, !code.isEmpty else {
                throw IdentityToolkitError(.missingCode)
            }
            guard let sessionInfo = info?["sessionInfo"]?.stringValue, !sessionInfo.isEmpty else {
                throw IdentityToolkitError(.missingSessionInfo)
            }
            if !retried { try checkLimit(user.account) }
            _ = try await PeerCall.call(
                challenges, FinalizeTotpEnrollment.self,
                .init(
                    projectId: projectId, tenantId: tenantId, localId: localId, sessionInfo: sessionInfo, verificationCode: code,
                    adjacentIntervals: intervals ?? 5, mfaEnrollmentId: enrollmentId
                ),
                requestID: request.requestID
            )
            kind = "totp"
        } else {
            guard let info = body["phoneVerificationInfo"], info != .null else {
                throw IdentityToolkitError(.invalidArgument, detail: "((Missing phoneVerificationInfo.))")
            }
            if info["androidVerificationProof"] != nil {
                throw IdentityToolkitError.unsupported("androidVerificationProof is unsupported!")
            }
            guard let code = info["code"]?.stringValue, !code.isEmpty else { throw IdentityToolkitError(.missingCode) }
            guard let sessionInfo = info["sessionInfo"]?.stringValue, !sessionInfo.isEmpty else {
                throw IdentityToolkitError(.missingSessionInfo)
            }
            if !retried { try checkLimit(user.account) }
            let number = try await phone.verify(
                sessionInfo: sessionInfo, code: code, purpose: "enroll", localId: localId, projectId: projectId,
                tenantId: tenantId, attempt: enrollmentId, request: request
            )
            if user.account.mfaInfo?.contains(where: { $0.phoneNumber == number && $0.mfaEnrollmentId != enrollmentId }) == true {
                throw IdentityToolkitError.phoneAlreadyEnrolled
            }
            kind = "phone"
            phoneNumber = number
        }
        let displayName = body["displayName"]?.stringValue
        // Decision 3: a new second factor ends every other session. ID tokens end by validSince,
        // which has one-second resolution like `iat`: the enrollment's commit sets it to the second
        // after the enrollment, and the new tokens are minted once that second has begun, so every
        // older token (iat before it) fails and the new ones (iat at it) work. Enrollment waits for
        // that boundary (half a second on average). A retry finds the factor saved and nothing moves.
        let revoked = try await PeerCall.call(
            registry, AddEnrollment.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: localId,
                enrollment: Enrollment(
                    mfaEnrollmentId: enrollmentId, kind: kind, displayName: displayName, phoneNumber: phoneNumber, enrolledAt: ""
                ),
                revokeSessions: true
            ),
            requestID: request.requestID
        )
        if let validSince = revoked.validSince {
            let wait = Double(validSince) - Date().timeIntervalSince1970
            if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000) + 5)) }
        }
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: localId, signInProvider: user.token.signInProvider,
                secondFactor: kind, secondFactorIdentifier: enrollmentId, authTime: user.token.authTime,
                user: SessionUser(revoked), revokeOtherSessions: true
            ),
            requestID: request.requestID
        )
        if !retried {
            await noticeNewFactor(
                enrollmentId, kind: kind, phoneNumber: phoneNumber, account: revoked, projectId: projectId, tenantId: tenantId,
                request: request
            )
        }
        return ["idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken)]
    }

    /// Identity Platform's defence against someone who got in and enrolled their own phone: the
    /// account's verified address is told of every new factor, with a link that removes it and
    /// ends every session. The enrollment stands if the mail cannot be sent (it is logged): the
    /// user already passed the factor, and a mail outage must not undo that.
    private func noticeNewFactor(
        _ enrollmentId: String, kind: String, phoneNumber: String?, account: Account, projectId: String, tenantId: String?,
        request: PublicRequest
    ) async {
        guard let email = account.email, account.emailVerified else { return }
        let factor = phoneNumber.map { "the phone number ending in \($0.suffix(4))" } ?? "an authenticator app"
        do {
            let made = try await mail.make(
                .init(
                    projectId: projectId, tenantId: tenantId, requestType: "REVERT_SECOND_FACTOR_ADDITION",
                    localId: account.localId, enrollmentId: enrollmentId
                ),
                apiKey: request.apiKey, continueUrl: nil, requestID: request.requestID
            )
            try await mail.send(
                made, requestType: "REVERT_SECOND_FACTOR_ADDITION", to: email, projectId: projectId, tenantId: tenantId,
                secondFactor: factor, requestID: request.requestID
            )
        } catch {
            logger.warning(
                "second-factor notice not sent", metadata: ["request.id": "\(request.requestID)", "factor.kind": "\(kind)"]
            )
        }
    }

    // MARK: withdraw

    /// Decision 4: the sessions established with the factor end; if the caller's is one of them,
    /// the answer has no tokens and its tokens now fail with `TOKEN_EXPIRED`.
    func withdraw(_ request: PublicRequest) async throws -> JSONValue {
        _ = try await prelude(request)
        let user = try await SignedInUser.resolve(request, registry: registry, sessions: sessions)
        try recentLogin.require(user)
        let (projectId, tenantId, localId) = (user.token.projectId, user.token.tenantId, user.account.localId)
        guard let enrollmentId = request.body["mfaEnrollmentId"]?.stringValue, !enrollmentId.isEmpty,
            let withdrawn = user.account.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentId })
        else { throw IdentityToolkitError(.mfaEnrollmentNotFound) }
        let account = try await PeerCall.call(
            registry, RemoveEnrollment.self,
            .init(projectId: projectId, tenantId: tenantId, localId: localId, mfaEnrollmentId: enrollmentId),
            requestID: request.requestID
        )
        try await AccountErasure(sessions: sessions, challenges: challenges).forgetFactors(
            [withdrawn], projectId: projectId, tenantId: tenantId, localId: localId, requestID: request.requestID
        )
        if user.token.secondFactorIdentifier == enrollmentId { return [:] }
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: localId, signInProvider: user.token.signInProvider,
                authTime: user.token.authTime, user: SessionUser(account)
            ),
            requestID: request.requestID
        )
        return ["idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken), "expiresIn": .string(tokens.expiresIn)]
    }

    // MARK: shared

    /// `PROJECT_DISABLED` first, in the tenant the body or the (not yet verified) token names.
    private func prelude(_ request: PublicRequest) async throws -> AuthSettings {
        let projectId = request.callerProjectId
        let tenantId = request.body["tenantId"]?.stringValue ?? RoutingHint.tenant(ofIDToken: request.body["idToken"]?.stringValue)
        return try await ScopeSettings.enabled(registry, projectId: projectId, tenantId: tenantId, requestID: request.requestID)
    }

    private func checkLimit(_ account: Account) throws {
        if (account.mfaInfo?.count ?? 0) >= MfaEnrollmentOperations.maximumFactors {
            throw IdentityToolkitError(.secondFactorLimitExceeded)
        }
    }

    /// Decision 8; factor-registry enforces the same limit (`enrollments.maximum`) under a lock.
    static let maximumFactors = 5
}
