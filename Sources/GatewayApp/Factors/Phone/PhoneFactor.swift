import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// SMS second factors (contract §2.8-§2.13, §3.1, §3.2): a 6-digit code sent to the enrolled number
/// (after app verification and the region policy, `PhoneChallenges`). The factor a sign-in passes
/// is found by the number the code proved; `mfaEnrollmentId` is ignored for phone (§2.12).
struct PhoneFactor: SecondFactorKind {
    static let kind = FactorKind.phone
    static let keepsSecret = false
    /// Phone factors stop a sign-in only while MFA is on: SMS has no switch of its own.
    static func stopsFirstFactor(_ settings: AuthSettings) -> Bool { SecondFactorPolicy.isOn(settings) }
    /// The enrolled number: a sign-in's code goes there by SMS.
    static func startsSignIn(to enrollment: Enrollment) -> String? { enrollment.phoneNumber }
    static func isNamed(by body: StartMFAEnrollmentRequest) -> Bool { body.phoneEnrollmentInfo != nil }
    static func isNamed(by body: FinalizeMFAEnrollmentRequest) -> Bool { body.phoneVerificationInfo != nil }
    static func isNamed(by body: FinalizeMFASignInRequest) -> Bool { body.phoneVerificationInfo != nil }
    static func session(of body: FinalizeMFAEnrollmentRequest) -> String? { body.phoneVerificationInfo?.sessionInfo }

    let phone: PhoneChallenges
    let pendingSignIns: PendingSignIns

    /// Lookup and admin answers show the real number in both members; first-factor answers a masked one.
    static func hint(_ enrollment: Enrollment, masked: Bool, in entry: inout MFAEnrollment) {
        let number = enrollment.phoneNumber ?? ""
        entry.phoneInfo = masked ? PhoneNumber.masked(number) : number
        if !masked { entry.unobfuscatedPhoneInfo = number }
    }

    static func newFactor(_ enrollment: Enrollment) -> NewSecondFactor {
        .phone(ending: String((enrollment.phoneNumber ?? "").suffix(4)))
    }

    func requireEnabled(_ settings: AuthSettings) throws {
        guard settings.mfaConfig.smsEnabled else { throw IdentityToolkitError.smsMFADisabled }
    }

    func startEnrollment(_ body: StartMFAEnrollmentRequest, user: SignedInUser, settings: AuthSettings, request: PublicRequest)
        async throws -> StartMFAEnrollmentResponse
    {
        guard let info = body.phoneEnrollmentInfo else {
            throw IdentityToolkitError(.invalidArgument, detail: "((Missing phoneEnrollmentInfo.))")
        }
        guard let number = info.phoneNumber, PhoneNumber.isValid(number) else {
            throw IdentityToolkitError.invalidPhoneNumberFormat
        }
        if user.account.mfaInfo?.contains(where: { $0.phoneNumber == number }) == true { throw IdentityToolkitError.phoneAlreadyEnrolled }
        let sessionInfo = try await phone.start(
            number: number, purpose: .enroll, account: user.account, proof: info.proof, settings: settings,
            projectId: user.token.projectId, tenantId: user.token.tenantId, request: request
        )
        return StartMFAEnrollmentResponse(phoneSessionInfo: .init(sessionInfo: sessionInfo))
    }

    func finishEnrollment(
        _ body: FinalizeMFAEnrollmentRequest, user: SignedInUser, enrollmentId: String, settings: AuthSettings,
        checkLimit: () throws -> Void, request: PublicRequest
    ) async throws -> Enrollment {
        let (code, sessionInfo) = try Self.codeAndSession(body.phoneVerificationInfo, missing: "((Missing phoneVerificationInfo.))")
        try checkLimit()
        let number = try await phone.verify(
            sessionInfo: sessionInfo, code: code, purpose: .enroll, localId: user.account.localId,
            projectId: user.token.projectId, tenantId: user.token.tenantId, attempt: enrollmentId, request: request
        )
        if user.account.mfaInfo?.contains(where: { $0.phoneNumber == number && $0.mfaEnrollmentId != enrollmentId }) == true {
            throw IdentityToolkitError.phoneAlreadyEnrolled
        }
        return Enrollment(mfaEnrollmentId: enrollmentId, kind: Self.kind, displayName: nil, phoneNumber: number, enrolledAt: "")
    }

    /// The members, the credential, then the code checked beside the account read; the factor is
    /// the one whose number (real or masked: iOS finishes with the masked one) the code proved.
    static func signInProof(_ body: FinalizeMFASignInRequest) throws -> SignInProof {
        let (code, sessionInfo) = try codeAndSession(body.phoneVerificationInfo, missing: nil)
        return SignInProof(code: code, sessionInfo: sessionInfo)
    }

    func verifySignIn(_ proof: SignInProof, pending: PendingSignIn, settings: AuthSettings, request: PublicRequest)
        async throws -> PassedSecondFactor
    {
        let (code, sessionInfo) = (proof.code, proof.sessionInfo ?? "")
        async let accountRead = Result.capturing { try await pendingSignIns.account(of: pending, request: request) }
        let verified = await Result.capturing {
            try await phone.verify(
                sessionInfo: sessionInfo, code: code, purpose: .signIn, localId: pending.facts.localId,
                projectId: pending.facts.projectId, tenantId: pending.facts.tenantId,
                attempt: FinalizeAttempt.signIn(finishing: pending.credential), request: request
            )
        }
        let read = await accountRead
        let number: String
        switch verified {
        case .failure(let refusal):
            try await pendingSignIns.requireLive(pending, request: request)
            throw refusal
        case .success(let proved): number = proved
        }
        guard case .success(let account) = read,
            let enrollment = account.mfaInfo?.first(where: {
                $0.kind == Self.kind && ($0.phoneNumber == number || $0.phoneNumber.map(PhoneNumber.masked) == number)
            })
        else {
            try await pendingSignIns.requireLive(pending, request: request)
            _ = try read.get()
            throw IdentityToolkitError(.mfaEnrollmentNotFound)
        }
        return PassedSecondFactor(pending: pending, account: account, enrollmentId: enrollment.mfaEnrollmentId)
    }

    /// A code's members in the contract's order: the member itself (`INVALID_ARGUMENT`), no Android
    /// proof (501), `MISSING_CODE`, `MISSING_SESSION_INFO`. Enrollment and sign-in word the first differently.
    private static func codeAndSession(
        _ info: FinalizeMFAPhoneRequestInfo?, missing: String?
    ) throws -> (code: String, sessionInfo: String) {
        guard let info else {
            throw missing.map { IdentityToolkitError(.invalidArgument, detail: $0) } ?? IdentityToolkitError.mfaProviderNotSupported
        }
        if info.androidVerificationProof != nil { throw IdentityToolkitError.unsupported("androidVerificationProof is unsupported!") }
        guard let code = info.code.nonEmpty else { throw IdentityToolkitError(.missingCode) }
        guard let sessionInfo = info.sessionInfo.nonEmpty else { throw IdentityToolkitError(.missingSessionInfo) }
        return (code, sessionInfo)
    }
}
