import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v2/accounts/mfaSignIn:start|finalize` (contract §2.11-§2.12): the second half of a sign-in that
/// stopped at the MFA branch. Finishing uses the pending credential up (one session per credential)
/// and records the sign-in (`lastLoginAt`, the ID token's `auth_time`).
///
/// Each operation checks in the contract's order, once. A sealed credential (its facts in it) and the
/// gateway's settings cache cost no call, so a finalize makes two calls in sequence: the factor's
/// check beside the account's, then the session beside the sign-in's record. An unsealed credential
/// costs one more call, to session-token, before them.
struct MfaSignInOperations: Sendable {
    let pendingSignIns: PendingSignIns
    let sessions: RPCClient
    let challenges: RPCClient
    let phone: PhoneChallenges
    let cachedSettings: CachedSettings
    let finisher: MfaSignInFinisher

    init(
        registry: RPCClient, sessions: RPCClient, challenges: RPCClient, phone: PhoneChallenges, keys: TokenSealKeys,
        cachedSettings: CachedSettings
    ) {
        self.pendingSignIns = PendingSignIns(registry: registry, sessions: sessions, keys: keys)
        self.sessions = sessions
        self.challenges = challenges
        self.phone = phone
        self.cachedSettings = cachedSettings
        self.finisher = MfaSignInFinisher(registry: registry, sessions: sessions)
    }

    func start(_ request: PublicRequest) async throws -> JSONValue {
        let body = request.body
        let credential = Self.nonEmpty(body["mfaPendingCredential"])
        let sealed = await pendingSignIns.sealedFacts(credential, request: request)
        let settings = try await scopeSettings(sealed, request: request)
        guard settings.mfaConfig.smsEnabled else { throw IdentityToolkitError.smsMFADisabled }
        guard let credential else {
            throw IdentityToolkitError(.missingMFAPendingCredential, detail: "Request does not have MFA pending credential.")
        }
        guard let enrollmentId = Self.nonEmpty(body["mfaEnrollmentId"]) else { throw IdentityToolkitError.missingMFAEnrollmentID }
        let pending = try await pendingSignIns.resolve(credential, sealed: sealed, finishing: false, request: request)
        // A code costs money: the credential must be unused before one is sent, so it is asked
        // beside the account read (session-token has already said so for an unsealed credential).
        async let live = Self.outcome { try await pendingSignIns.requireLive(pending, request: request) }
        let read = await Self.outcome { try await pendingSignIns.account(of: pending, request: request) }
        try await live.get()
        let account = try read.get()
        guard let enrollment = account.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentId }) else {
            throw IdentityToolkitError(.mfaEnrollmentNotFound)
        }
        guard enrollment.kind == "phone", let number = enrollment.phoneNumber else {
            throw IdentityToolkitError.mfaProviderNotSupported
        }
        let sessionInfo = try await phone.start(
            number: number, purpose: "signIn", localId: account.localId, proof: body["phoneSignInInfo"], settings: settings,
            projectId: pending.facts.projectId, tenantId: pending.facts.tenantId, request: request
        )
        return ["phoneResponseInfo": ["sessionInfo": .string(sessionInfo)]]
    }

    /// The contract's order (§2.12): `PROJECT_DISABLED`, the factor kind enabled, the credential
    /// present, the proof's fields, the credential valid, then the factor's own checks.
    func finalize(_ request: PublicRequest) async throws -> JSONValue {
        let body = request.body
        let credential = Self.nonEmpty(body["mfaPendingCredential"])
        let sealed = await pendingSignIns.sealedFacts(credential, request: request)
        let settings = try await scopeSettings(sealed, request: request)
        let totp = body["totpVerificationInfo"] != nil && body["phoneVerificationInfo"] == nil
        if totp {
            guard settings.mfaConfig.totpAdjacentIntervals != nil else { throw IdentityToolkitError.totpMFADisabled }
        } else {
            guard settings.mfaConfig.smsEnabled else { throw IdentityToolkitError.smsMFADisabled }
        }
        guard let credential else { throw IdentityToolkitError(.missingCredential, detail: "Please set MFA Pending Credential.") }
        if totp {
            guard let enrollmentId = Self.nonEmpty(body["mfaEnrollmentId"]) else { throw IdentityToolkitError.missingMFAEnrollmentID }
            guard let code = Self.nonEmpty(body["totpVerificationInfo"]?["verificationCode"]) else {
                throw IdentityToolkitError(.missingCode)
            }
            let pending = try await pendingSignIns.resolve(credential, sealed: sealed, finishing: true, request: request)
            let check = TotpCheck(
                code: code, enrollmentId: enrollmentId, adjacentIntervals: settings.mfaConfig.totpAdjacentIntervals ?? 5,
                pending: pending
            )
            return try await finishTotp(check, request: request)
        }
        guard let info = body["phoneVerificationInfo"], info != .null else { throw IdentityToolkitError.mfaProviderNotSupported }
        if info["androidVerificationProof"] != nil { throw IdentityToolkitError.unsupported("androidVerificationProof is unsupported!") }
        guard let code = Self.nonEmpty(info["code"]) else { throw IdentityToolkitError(.missingCode) }
        guard let sessionInfo = Self.nonEmpty(info["sessionInfo"]) else { throw IdentityToolkitError(.missingSessionInfo) }
        let pending = try await pendingSignIns.resolve(credential, sealed: sealed, finishing: true, request: request)
        return try await finishPhone(pending, sessionInfo: sessionInfo, code: code, request: request)
    }

    /// TOTP: the code checked beside the account with that factor (hop 1), then the finish (hop 2).
    /// A refusal is answered in contract order: the credential's own validity, then the account's
    /// (`MFA_ENROLLMENT_NOT_FOUND`), then the code's.
    private func finishTotp(_ check: TotpCheck, request: PublicRequest) async throws -> JSONValue {
        let pending = check.pending
        async let accountCheck = Self.outcome {
            try await pendingSignIns.account(of: pending, with: check.enrollmentId, kind: "totp", request: request)
        }
        let code = await Self.outcome { try await checkTotpCode(check, request: request) }
        let account = await accountCheck
        if case .failure(let refusal) = code {
            try await pendingSignIns.requireLive(pending, request: request)
            _ = try account.get()
            throw refusal
        }
        if case .failure = account { try await pendingSignIns.requireLive(pending, request: request) }
        return try await finisher.finish(
            pending, account: try account.get(), secondFactor: "totp", enrollmentId: check.enrollmentId, request: request
        )
    }

    /// SMS: the code checked beside the account read (hop 1); the factor is the one whose number
    /// the code proved (`mfaEnrollmentId` is ignored for phone, §2.12); then the finish (hop 2).
    private func finishPhone(_ pending: PendingSignIn, sessionInfo: String, code: String, request: PublicRequest) async throws
        -> JSONValue
    {
        async let accountRead = Self.outcome { try await pendingSignIns.account(of: pending, request: request) }
        let verified = await Self.outcome {
            try await phone.verify(
                sessionInfo: sessionInfo, code: code, purpose: "signIn", localId: pending.facts.localId,
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
        guard case .success(let account) = read, let enrollment = Self.phoneEnrollment(number, of: account) else {
            try await pendingSignIns.requireLive(pending, request: request)
            _ = try read.get()
            throw IdentityToolkitError(.mfaEnrollmentNotFound)
        }
        return try await finisher.finish(
            pending, account: account, secondFactor: "phone", enrollmentId: enrollment.mfaEnrollmentId, request: request
        )
    }

    /// `PROJECT_DISABLED` first, from the gateway's cache, in the tenant the credential names
    /// (sealed), else the one the body or the credential's routing hint names.
    private func scopeSettings(_ sealed: InspectPendingCredential.Result?, request: PublicRequest) async throws -> AuthSettings {
        let tenantId =
            sealed.map(\.tenantId)
            ?? request.body["tenantId"]?.stringValue
            ?? RoutingHint.tenant(ofScopedToken: request.body["mfaPendingCredential"]?.stringValue)
        return try await cachedSettings.enabled(projectId: request.callerProjectId, tenantId: tenantId, requestID: request.requestID)
    }

    /// One TOTP sign-in check: the code, the factor, and the sign-in (pending credential) it finishes.
    private struct TotpCheck {
        let code: String
        let enrollmentId: String
        let adjacentIntervals: Int
        let pending: PendingSignIn
    }

    /// challenge-issuer's check of a code against the pending user's TOTP factor. The attempt lets
    /// a finalize retried with the same credential and code pass again (FinalizeAttempt).
    private func checkTotpCode(_ check: TotpCheck, request: PublicRequest) async throws {
        let facts = check.pending.facts
        _ = try await PeerCall.call(
            challenges, VerifyTotp.self,
            .init(
                projectId: facts.projectId, tenantId: facts.tenantId, localId: facts.localId,
                mfaEnrollmentId: check.enrollmentId, verificationCode: check.code, adjacentIntervals: check.adjacentIntervals,
                attempt: FinalizeAttempt.signIn(finishing: check.pending.credential)
            ),
            requestID: request.requestID
        )
    }

    private static func phoneEnrollment(_ number: String, of account: Account) -> Enrollment? {
        // Found by number, real or masked (iOS finishes with the masked one).
        account.mfaInfo?.first(where: {
            $0.kind == "phone" && ($0.phoneNumber == number || $0.phoneNumber.map(PhoneNumber.masked) == number)
        })
    }

    static func outcome<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    static func nonEmpty(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue, !text.isEmpty else { return nil }
        return text
    }
}
