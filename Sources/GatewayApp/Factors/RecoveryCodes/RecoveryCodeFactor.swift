import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// Recovery codes (docs/mfa-policy.md) as the SDKs see them: one TOTP-shaped `mfaInfo` entry
/// (`totpInfo: {}`, display name "Recovery codes"), so the stock resolver lists it, and a sign-in
/// finishes with `totpVerificationInfo.verificationCode` = a code, which every SDK passes through
/// unchanged. The set's enrollment id starts with ``idPrefix`` (a dash never appears in other
/// ids), which is how a finalize carrying TOTP members is told to be this kind. Codes are made
/// through this server's own endpoint (RecoveryCodeOperations), never through `mfaEnrollment`.
struct RecoveryCodeFactor: SecondFactorKind {
    static let kind = FactorKind.recoveryCode
    static let keepsSecret = true
    /// The codes are the user's own, shown once: nothing to start.
    static func startsSignIn(to enrollment: Enrollment) -> String? { nil }
    /// A set exists only beside another factor, whose kind decides.
    static func stopsFirstFactor(_ settings: AuthSettings) -> Bool { false }
    static let idPrefix = "recovery-"
    static let displayName = "Recovery codes"

    static func isNamed(by body: StartMFAEnrollmentRequest) -> Bool { false }
    static func isNamed(by body: FinalizeMFAEnrollmentRequest) -> Bool { false }
    static func isNamed(by body: FinalizeMFASignInRequest) -> Bool {
        body.totpVerificationInfo != nil && body.mfaEnrollmentId?.hasPrefix(idPrefix) == true
    }
    static func session(of body: FinalizeMFAEnrollmentRequest) -> String? { nil }
    static func hint(_ enrollment: Enrollment, masked: Bool, in entry: inout MFAEnrollment) { entry.totpInfo = TOTPInfo() }
    static func newFactor(_ enrollment: Enrollment) -> NewSecondFactor { NewSecondFactor(kind: .init(kind)) }

    let challenges: PeerClient<ChallengeIssuerAPI>
    let pendingSignIns: PendingSignIns
    /// Tells the account's owner a code was used, and how many are left.
    let notice: RecoveryCodeNotice

    /// Usable wherever second factors are on (MFA ENABLED or MANDATORY, or TOTP enabled).
    func requireEnabled(_ settings: AuthSettings) throws { try Self.requireEnabled(settings) }

    static func requireEnabled(_ settings: AuthSettings) throws {
        guard settings.mfaConfig.isOn || settings.mfaConfig.totpAdjacentIntervals != nil else {
            throw IdentityToolkitError(.operationNotAllowed, detail: "Second factors are not enabled for this project.")
        }
    }

    func startEnrollment(_ body: StartMFAEnrollmentRequest, user: SignedInUser, settings: AuthSettings, request: PublicRequest)
        async throws -> StartMFAEnrollmentResponse
    { throw IdentityToolkitError.mfaProviderNotSupported }

    func finishEnrollment(
        _ body: FinalizeMFAEnrollmentRequest, user: SignedInUser, enrollmentId: String, settings: AuthSettings,
        checkLimit: () throws -> Void, request: PublicRequest
    ) async throws -> Enrollment { throw IdentityToolkitError.mfaProviderNotSupported }

    /// As a TOTP code's check (TOTPFactor): `MISSING_MFA_ENROLLMENT_ID`, `MISSING_CODE`, the
    /// credential, then the code redeemed beside the account check; refusals in the same order.
    static func signInProof(_ body: FinalizeMFASignInRequest) throws -> SignInProof {
        guard let enrollmentId = body.mfaEnrollmentId.nonEmpty else { throw IdentityToolkitError.missingMFAEnrollmentID }
        guard let code = body.totpVerificationInfo?.verificationCode.nonEmpty else { throw IdentityToolkitError(.missingCode) }
        return SignInProof(code: code, enrollmentId: enrollmentId)
    }

    func verifySignIn(_ proof: SignInProof, pending: PendingSignIn, settings: AuthSettings, request: PublicRequest)
        async throws -> PassedSecondFactor
    {
        let (code, enrollmentId, facts) = (proof.code, proof.enrollmentId ?? "", pending.facts)
        return try await pendingSignIns.passing(pending, enrollmentId: enrollmentId, kind: Self.kind, request: request) {
            _ = try await PeerCall.call(
                challenges, RedeemRecoveryCode.self,
                .init(
                    projectId: facts.projectId, tenantId: facts.tenantId, localId: facts.localId, mfaEnrollmentId: enrollmentId,
                    code: code, attempt: FinalizeAttempt.signIn(finishing: pending.credential)
                ),
                requestID: request.requestID
            )
        }
    }

    /// A used code is news to its owner (docs/mfa-policy.md).
    func afterSignIn(_ passed: PassedSecondFactor, request: PublicRequest) async {
        let facts = passed.pending.facts
        await notice.send(to: passed.account, projectId: facts.projectId, tenantId: facts.tenantId, request: request)
    }
}
