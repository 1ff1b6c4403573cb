import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// TOTP second factors (contract §2.8-§2.12, §3.9): an authenticator app's 6-digit codes from a
/// secret challenge-issuer keeps sealed. Enrollment shows the secret once; sign-in checks a code
/// against it (replay and guessing budgets held by challenge-issuer).
struct TOTPFactor: SecondFactorKind {
    static let kind = FactorKind.totp
    static let keepsSecret = true
    /// The code is the authenticator app's own: nothing to start.
    static func startsSignIn(to enrollment: Enrollment) -> String? { nil }
    /// TOTP enabled through `providerConfigs` alone stops a sign-in even with MFA off (§3.5).
    static func stopsFirstFactor(_ settings: AuthSettings) -> Bool {
        SecondFactorPolicy.isOn(settings) || settings.mfaConfig.totpAdjacentIntervals != nil
    }
    static func isNamed(by body: StartMFAEnrollmentRequest) -> Bool { body.totpEnrollmentInfo != nil }
    static func isNamed(by body: FinalizeMFAEnrollmentRequest) -> Bool { body.totpVerificationInfo != nil }
    static func isNamed(by body: FinalizeMFASignInRequest) -> Bool { body.totpVerificationInfo != nil }
    static func session(of body: FinalizeMFAEnrollmentRequest) -> String? { body.totpVerificationInfo?.sessionInfo }

    let challenges: PeerClient<ChallengeIssuerAPI>
    let pendingSignIns: PendingSignIns

    static func hint(_ enrollment: Enrollment, masked: Bool, in entry: inout MFAEnrollment) { entry.totpInfo = TOTPInfo() }

    static func newFactor(_ enrollment: Enrollment) -> NewSecondFactor { .authenticator }

    func requireEnabled(_ settings: AuthSettings) throws {
        guard settings.mfaConfig.totpAdjacentIntervals != nil else { throw IdentityToolkitError.totpMFADisabled }
    }

    /// The scope's window of codes either side of now (checked enabled first; 5 is the default).
    static func adjacentIntervals(_ settings: AuthSettings) -> Int { settings.mfaConfig.totpAdjacentIntervals ?? 5 }

    func startEnrollment(_ body: StartMFAEnrollmentRequest, user: SignedInUser, settings: AuthSettings, request: PublicRequest)
        async throws -> StartMFAEnrollmentResponse
    {
        let started = try await PeerCall.call(
            challenges, StartTOTPEnrollment.self,
            .init(projectId: user.token.projectId, tenantId: user.token.tenantId, localId: user.account.localId),
            requestID: request.requestID
        )
        return StartMFAEnrollmentResponse(
            totpSessionInfo: .init(
                sharedSecretKey: started.sharedSecretKey, verificationCodeLength: started.verificationCodeLength,
                hashingAlgorithm: started.hashingAlgorithm, periodSec: started.periodSec, sessionInfo: started.sessionInfo,
                finalizeEnrollmentTime: started.finalizeEnrollmentTime
            )
        )
    }

    func finishEnrollment(
        _ body: FinalizeMFAEnrollmentRequest, user: SignedInUser, enrollmentId: String, settings: AuthSettings,
        checkLimit: () throws -> Void, request: PublicRequest
    ) async throws -> Enrollment {
        let info = body.totpVerificationInfo
        guard let code = info?.verificationCode.nonEmpty else { throw IdentityToolkitError(.missingCode) }
        guard let sessionInfo = info?.sessionInfo.nonEmpty else {
            throw IdentityToolkitError(.missingSessionInfo)
        }
        try checkLimit()
        _ = try await PeerCall.call(
            challenges, FinalizeTOTPEnrollment.self,
            .init(
                projectId: user.token.projectId, tenantId: user.token.tenantId, localId: user.account.localId,
                sessionInfo: sessionInfo, verificationCode: code, adjacentIntervals: Self.adjacentIntervals(settings),
                mfaEnrollmentId: enrollmentId
            ),
            requestID: request.requestID
        )
        return Enrollment(mfaEnrollmentId: enrollmentId, kind: Self.kind, displayName: nil, phoneNumber: nil, enrolledAt: "")
    }

    /// `MISSING_MFA_ENROLLMENT_ID`, `MISSING_CODE`, the credential; then the code checked beside the
    /// account with that factor. A refusal: the credential's own validity, then the account's
    /// (`MFA_ENROLLMENT_NOT_FOUND`), then the code's.
    static func signInProof(_ body: FinalizeMFASignInRequest) throws -> SignInProof {
        guard let enrollmentId = body.mfaEnrollmentId.nonEmpty else {
            throw IdentityToolkitError.missingMFAEnrollmentID
        }
        guard let code = body.totpVerificationInfo?.verificationCode.nonEmpty else {
            throw IdentityToolkitError(.missingCode)
        }
        return SignInProof(code: code, enrollmentId: enrollmentId)
    }

    func verifySignIn(_ proof: SignInProof, pending: PendingSignIn, settings: AuthSettings, request: PublicRequest)
        async throws -> PassedSecondFactor
    {
        let (code, enrollmentId) = (proof.code, proof.enrollmentId ?? "")
        return try await pendingSignIns.passing(pending, enrollmentId: enrollmentId, kind: Self.kind, request: request) {
            try await checkCode(code, enrollmentId: enrollmentId, settings: settings, pending: pending, request: request)
        }
    }

    /// challenge-issuer's check of a code against the pending user's factor. The attempt lets a
    /// finalize retried with the same credential and code pass again (FinalizeAttempt).
    private func checkCode(
        _ code: String, enrollmentId: String, settings: AuthSettings, pending: PendingSignIn, request: PublicRequest
    ) async throws {
        let facts = pending.facts
        _ = try await PeerCall.call(
            challenges, VerifyTOTP.self,
            .init(
                projectId: facts.projectId, tenantId: facts.tenantId, localId: facts.localId, mfaEnrollmentId: enrollmentId,
                verificationCode: code, adjacentIntervals: Self.adjacentIntervals(settings),
                attempt: FinalizeAttempt.signIn(finishing: pending.credential)
            ),
            requestID: request.requestID
        )
    }
}
