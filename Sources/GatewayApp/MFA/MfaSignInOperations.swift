import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v2/accounts/mfaSignIn:start|finalize` (contract §2.11-§2.12): the second half of a sign-in that
/// stopped at the MFA branch. Finishing uses the pending credential up (one session per credential)
/// and records the sign-in (`lastLoginAt`, the ID token's `auth_time`).
struct MfaSignInOperations: Sendable {
    let registry: RPCClient
    let sessions: RPCClient
    let challenges: RPCClient
    let phone: PhoneChallenges

    func start(_ request: PublicRequest) async throws -> JSONValue {
        let body = request.body
        let settings: AuthSettings
        let pending: InspectPendingCredential.Result
        let account: Account
        let enrollmentId: String
        if let credential = Self.nonEmpty(body["mfaPendingCredential"]), let enrollment = Self.nonEmpty(body["mfaEnrollmentId"]),
            let settled = try await settledSignIn(credential, request: request)
        {
            guard settled.settings.mfaConfig.smsEnabled else { throw SecondFactorPolicy.smsDisabled }
            let found = try await self.account(of: settled.pending, request: request)
            (settings, pending, account, enrollmentId) = (settled.settings, settled.pending, found, enrollment)
        } else {
            let projectId: String
            (settings, projectId) = try await prelude(request)
            guard settings.mfaConfig.smsEnabled else { throw SecondFactorPolicy.smsDisabled }
            guard let credential = Self.nonEmpty(body["mfaPendingCredential"]) else {
                throw IdentityToolkitError.business("MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending credential.")
            }
            guard let enrollment = Self.nonEmpty(body["mfaEnrollmentId"]) else {
                throw IdentityToolkitError.business("MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
            }
            (pending, account) = try await pendingSignIn(credential, projectId: projectId, request: request)
            enrollmentId = enrollment
        }
        guard let enrollment = account.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentId }) else {
            throw IdentityToolkitError.business("MFA_ENROLLMENT_NOT_FOUND")
        }
        guard enrollment.kind == "phone", let number = enrollment.phoneNumber else {
            throw IdentityToolkitError.business("INVALID_ARGUMENT : MFA provider not supported!")
        }
        let sessionInfo = try await phone.start(
            number: number, purpose: "signIn", localId: account.localId, proof: body["phoneSignInInfo"], settings: settings,
            projectId: pending.projectId, tenantId: pending.tenantId, request: request
        )
        return ["phoneResponseInfo": ["sessionInfo": .string(sessionInfo)]]
    }

    func finalize(_ request: PublicRequest) async throws -> JSONValue {
        let body = request.body
        let totp = body["totpVerificationInfo"] != nil && body["phoneVerificationInfo"] == nil
        // A complete TOTP request checks its code before reading the account (the sequential order
        // reads it first); any doubt about the request sends it down the sequential path, which
        // answers in contract order.
        if totp, let credential = Self.nonEmpty(body["mfaPendingCredential"]), let enrollmentId = Self.nonEmpty(body["mfaEnrollmentId"]),
            let code = Self.nonEmpty(body["totpVerificationInfo"]?["verificationCode"]),
            let settled = try await settledSignIn(credential, finishing: true, request: request)
        {
            guard let adjacentIntervals = settled.settings.mfaConfig.totpAdjacentIntervals else { throw SecondFactorPolicy.totpDisabled }
            let check = TotpCheck(
                code: code, credential: credential, enrollmentId: enrollmentId, adjacentIntervals: adjacentIntervals,
                pending: settled.pending
            )
            try await verifyTotpBeforeAccount(check, request: request)
            return try await finish(credential, pending: settled.pending, secondFactor: "totp", enrollmentId: enrollmentId, request: request)
        }
        let (settings, projectId) = try await prelude(request)
        if totp {
            guard settings.mfaConfig.totpAdjacentIntervals != nil else { throw SecondFactorPolicy.totpDisabled }
        } else {
            guard settings.mfaConfig.smsEnabled else { throw SecondFactorPolicy.smsDisabled }
        }
        guard let credential = Self.nonEmpty(body["mfaPendingCredential"]) else {
            throw IdentityToolkitError.business("MISSING_CREDENTIAL : Please set MFA Pending Credential.")
        }
        let enrollment: Enrollment
        let pending: InspectPendingCredential.Result
        if totp {
            guard let enrollmentId = Self.nonEmpty(body["mfaEnrollmentId"]) else {
                throw IdentityToolkitError.business("MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
            }
            guard let code = Self.nonEmpty(body["totpVerificationInfo"]?["verificationCode"]) else {
                throw IdentityToolkitError.business("MISSING_CODE")
            }
            let account: Account
            (pending, account) = try await pendingSignIn(credential, projectId: projectId, finishing: true, request: request)
            let check = TotpCheck(
                code: code, credential: credential, enrollmentId: enrollmentId,
                adjacentIntervals: settings.mfaConfig.totpAdjacentIntervals ?? 5, pending: pending
            )
            enrollment = try await verifyTotp(check, account: account, request: request)
        } else {
            guard let info = body["phoneVerificationInfo"], info != .null else {
                throw IdentityToolkitError.business("INVALID_ARGUMENT : MFA provider not supported!")
            }
            if info["androidVerificationProof"] != nil {
                throw IdentityToolkitError.unsupported("androidVerificationProof is unsupported!")
            }
            guard let code = Self.nonEmpty(info["code"]) else { throw IdentityToolkitError.business("MISSING_CODE") }
            guard let sessionInfo = Self.nonEmpty(info["sessionInfo"]) else {
                throw IdentityToolkitError.business("MISSING_SESSION_INFO")
            }
            // The session names its user; the credential must be that user's (checked below).
            let inspected = try await PeerCall.call(
                sessions, InspectPendingCredential.self, .init(mfaPendingCredential: credential, finishing: true),
                requestID: request.requestID
            )
            let number = try await phone.verify(
                sessionInfo: sessionInfo, code: code, purpose: "signIn", localId: inspected.localId,
                projectId: inspected.projectId, tenantId: inspected.tenantId, attempt: FinalizeAttempt.signIn(finishing: credential),
                request: request
            )
            let account: Account
            (pending, account) = try await pendingSignIn(credential, projectId: projectId, finishing: true, request: request)
            // Found by number, real or masked (iOS finishes with the masked one).
            guard
                let found = account.mfaInfo?.first(where: {
                    $0.kind == "phone" && ($0.phoneNumber == number || $0.phoneNumber.map(PhoneNumber.masked) == number)
                })
            else { throw IdentityToolkitError.business("MFA_ENROLLMENT_NOT_FOUND") }
            enrollment = found
        }
        return try await finish(
            credential, pending: pending, secondFactor: enrollment.kind, enrollmentId: enrollment.mfaEnrollmentId, request: request
        )
    }

    /// `MFA_ENROLLMENT_NOT_FOUND` unless the account has this TOTP factor, then the code check.
    private func verifyTotp(_ check: TotpCheck, account: Account, request: PublicRequest) async throws -> Enrollment {
        guard let found = Self.totpEnrollment(check.enrollmentId, of: account) else {
            throw IdentityToolkitError.business("MFA_ENROLLMENT_NOT_FOUND")
        }
        try await checkTotpCode(check, request: request)
        return found
    }

    /// The code check of a complete request, made before the account is read. The account's own
    /// checks come first in contract order, so a refusal is answered with theirs when one applies;
    /// a good code still signs nobody in unless the account has the enrollment (`finish` requires
    /// it in the statement that records the sign-in). What the check recorded on a factor the
    /// account no longer lists (a step, a failure) changes nothing anyone can use.
    private func verifyTotpBeforeAccount(_ check: TotpCheck, request: PublicRequest) async throws {
        do {
            try await checkTotpCode(check, request: request)
        } catch {
            guard Self.totpEnrollment(check.enrollmentId, of: try await account(of: check.pending, request: request)) != nil else {
                throw IdentityToolkitError.business("MFA_ENROLLMENT_NOT_FOUND")
            }
            throw error
        }
    }

    /// One TOTP sign-in check: the code, the factor, and the sign-in (pending credential) it finishes.
    private struct TotpCheck {
        let code: String
        let credential: String
        let enrollmentId: String
        let adjacentIntervals: Int
        let pending: InspectPendingCredential.Result
    }

    /// challenge-issuer's check of a code against the pending user's TOTP factor. The attempt lets
    /// a finalize retried with the same credential and code pass again (FinalizeAttempt).
    private func checkTotpCode(_ check: TotpCheck, request: PublicRequest) async throws {
        let pending = check.pending
        _ = try await PeerCall.call(
            challenges, VerifyTotp.self,
            .init(
                projectId: pending.projectId, tenantId: pending.tenantId, localId: pending.localId,
                mfaEnrollmentId: check.enrollmentId, verificationCode: check.code, adjacentIntervals: check.adjacentIntervals,
                attempt: FinalizeAttempt.signIn(finishing: check.credential)
            ),
            requestID: request.requestID
        )
    }

    private static func totpEnrollment(_ enrollmentId: String, of account: Account) -> Enrollment? {
        account.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentId && $0.kind == "totp" })
    }

    /// The second factor passed: record the sign-in, then the session (using the credential up).
    /// The sign-in is recorded only while the account still has the factor.
    private func finish(
        _ credential: String, pending: InspectPendingCredential.Result, secondFactor: String, enrollmentId: String,
        request: PublicRequest
    ) async throws -> JSONValue {
        let signedIn: Account
        do {
            signedIn = try await PeerCall.call(
                registry, RecordSignIn.self,
                .init(
                    projectId: pending.projectId, tenantId: pending.tenantId, localId: pending.localId,
                    requiredEnrollment: enrollmentId, requiredKind: secondFactor
                ),
                requestID: request.requestID
            )
        } catch let error as IdentityToolkitError where error.message == "USER_NOT_FOUND" {
            throw IdentityToolkitError.business("INVALID_MFA_PENDING_CREDENTIAL")
        }
        if signedIn.disabled { throw IdentityToolkitError.business("USER_DISABLED") }
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: pending.projectId, tenantId: pending.tenantId, localId: pending.localId,
                signInProvider: pending.signInProvider, secondFactor: secondFactor, secondFactorIdentifier: enrollmentId,
                authTime: (signedIn.lastLoginAt.flatMap { Int64($0) } ?? 0) / 1000, user: SessionUser(signedIn),
                consumePendingCredential: credential
            ),
            requestID: request.requestID
        )
        return ["idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken)]
    }

    /// The settings and pending sign-in of a request whose input is complete: the credential first
    /// (reading it changes nothing), then its scope's settings. `nil` when the credential does not
    /// check out or names another scope than the settings' (the body's tenant wins there): the
    /// caller then takes the sequential path, which answers in contract order. `PROJECT_DISABLED`
    /// comes first, as always.
    private func settledSignIn(_ credential: String, finishing: Bool = false, request: PublicRequest) async throws
        -> (settings: AuthSettings, pending: InspectPendingCredential.Result)?
    {
        guard
            let pending = try? await PeerCall.call(
                sessions, InspectPendingCredential.self, .init(mfaPendingCredential: credential, finishing: finishing),
                requestID: request.requestID
            ),
            pending.projectId == request.callerProjectId,
            (request.body["tenantId"]?.stringValue ?? RoutingHint.tenant(ofScopedToken: credential)) == pending.tenantId
        else { return nil }
        let settings = try await ScopeSettings.enabled(
            registry, projectId: pending.projectId, tenantId: pending.tenantId, requestID: request.requestID
        )
        return (settings, pending)
    }

    static func nonEmpty(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue, !text.isEmpty else { return nil }
        return text
    }

    /// `PROJECT_DISABLED` first, in the tenant the body or the credential names.
    private func prelude(_ request: PublicRequest) async throws -> (AuthSettings, String) {
        let projectId = request.callerProjectId
        let tenantId =
            request.body["tenantId"]?.stringValue
            ?? RoutingHint.tenant(ofScopedToken: request.body["mfaPendingCredential"]?.stringValue)
        let settings = try await ScopeSettings.enabled(registry, projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        return (settings, projectId)
    }

    /// The pending sign-in and its account, for the caller's project and the request's tenant.
    /// `finishing`: a finalize asks, and may be the retry of one whose answer was lost.
    private func pendingSignIn(_ credential: String, projectId: String, finishing: Bool = false, request: PublicRequest) async throws
        -> (InspectPendingCredential.Result, Account)
    {
        let pending = try await PeerCall.call(
            sessions, InspectPendingCredential.self, .init(mfaPendingCredential: credential, finishing: finishing),
            requestID: request.requestID
        )
        guard pending.projectId == projectId else { throw IdentityToolkitError.business("INVALID_MFA_PENDING_CREDENTIAL") }
        if let tenantId = request.body["tenantId"]?.stringValue, tenantId != pending.tenantId {
            throw IdentityToolkitError.business("TENANT_ID_MISMATCH")
        }
        return (pending, try await account(of: pending, request: request))
    }

    /// The pending sign-in's account; a credential whose account is gone is no longer valid.
    private func account(of pending: InspectPendingCredential.Result, request: PublicRequest) async throws -> Account {
        do {
            return try await PeerCall.call(
                registry, GetAccount.self,
                .init(projectId: pending.projectId, tenantId: pending.tenantId, localId: pending.localId),
                requestID: request.requestID
            )
        } catch let error as IdentityToolkitError where error.message == "USER_NOT_FOUND" {
            throw IdentityToolkitError.business("INVALID_MFA_PENDING_CREDENTIAL")
        }
    }
}
