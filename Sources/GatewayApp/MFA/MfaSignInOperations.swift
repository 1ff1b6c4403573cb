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
        let (settings, projectId) = try await prelude(request)
        guard settings.mfaConfig.smsEnabled else { throw SecondFactorPolicy.smsDisabled }
        guard let credential = body["mfaPendingCredential"]?.stringValue, !credential.isEmpty else {
            throw IdentityToolkitError.business("MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending credential.")
        }
        guard let enrollmentId = body["mfaEnrollmentId"]?.stringValue, !enrollmentId.isEmpty else {
            throw IdentityToolkitError.business("MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
        }
        let (pending, account) = try await pendingSignIn(credential, projectId: projectId, request: request)
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
        let (settings, projectId) = try await prelude(request)
        let totp = body["totpVerificationInfo"] != nil && body["phoneVerificationInfo"] == nil
        if totp {
            guard settings.mfaConfig.totpAdjacentIntervals != nil else { throw SecondFactorPolicy.totpDisabled }
        } else {
            guard settings.mfaConfig.smsEnabled else { throw SecondFactorPolicy.smsDisabled }
        }
        guard let credential = body["mfaPendingCredential"]?.stringValue, !credential.isEmpty else {
            throw IdentityToolkitError.business("MISSING_CREDENTIAL : Please set MFA Pending Credential.")
        }
        let enrollment: Enrollment
        let pending: InspectPendingCredential.Result
        if totp {
            guard let enrollmentId = body["mfaEnrollmentId"]?.stringValue, !enrollmentId.isEmpty else {
                throw IdentityToolkitError.business("MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
            }
            guard let code = body["totpVerificationInfo"]?["verificationCode"]?.stringValue, !code.isEmpty else {
                throw IdentityToolkitError.business("MISSING_CODE")
            }
            let account: Account
            (pending, account) = try await pendingSignIn(credential, projectId: projectId, request: request)
            guard let found = account.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentId && $0.kind == "totp" }) else {
                throw IdentityToolkitError.business("MFA_ENROLLMENT_NOT_FOUND")
            }
            _ = try await PeerCall.call(
                challenges, VerifyTotp.self,
                .init(
                    projectId: pending.projectId, tenantId: pending.tenantId, localId: account.localId,
                    mfaEnrollmentId: enrollmentId, verificationCode: code,
                    adjacentIntervals: settings.mfaConfig.totpAdjacentIntervals ?? 5
                ),
                requestID: request.requestID
            )
            enrollment = found
        } else {
            guard let info = body["phoneVerificationInfo"], info != .null else {
                throw IdentityToolkitError.business("INVALID_ARGUMENT : MFA provider not supported!")
            }
            if info["androidVerificationProof"] != nil {
                throw IdentityToolkitError.unsupported("androidVerificationProof is unsupported!")
            }
            guard let code = info["code"]?.stringValue, !code.isEmpty else { throw IdentityToolkitError.business("MISSING_CODE") }
            guard let sessionInfo = info["sessionInfo"]?.stringValue, !sessionInfo.isEmpty else {
                throw IdentityToolkitError.business("MISSING_SESSION_INFO")
            }
            // The session names its user; the credential must be that user's (checked below).
            let inspected = try await PeerCall.call(
                sessions, InspectPendingCredential.self, .init(mfaPendingCredential: credential), requestID: request.requestID
            )
            let number = try await phone.verify(
                sessionInfo: sessionInfo, code: code, purpose: "signIn", localId: inspected.localId,
                projectId: inspected.projectId, tenantId: inspected.tenantId, request: request
            )
            let account: Account
            (pending, account) = try await pendingSignIn(credential, projectId: projectId, request: request)
            // Found by number, real or masked (iOS finishes with the masked one).
            guard
                let found = account.mfaInfo?.first(where: {
                    $0.kind == "phone" && ($0.phoneNumber == number || $0.phoneNumber.map(PhoneNumber.masked) == number)
                })
            else { throw IdentityToolkitError.business("MFA_ENROLLMENT_NOT_FOUND") }
            enrollment = found
        }
        let signedIn = try await PeerCall.call(
            registry, UpdateAccount.self,
            .init(projectId: pending.projectId, tenantId: pending.tenantId, localId: pending.localId, recordSignIn: true),
            requestID: request.requestID
        )
        if signedIn.disabled { throw IdentityToolkitError.business("USER_DISABLED") }
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: pending.projectId, tenantId: pending.tenantId, localId: pending.localId,
                signInProvider: pending.signInProvider, secondFactor: enrollment.kind,
                secondFactorIdentifier: enrollment.mfaEnrollmentId,
                authTime: (signedIn.lastLoginAt.flatMap { Int64($0) } ?? 0) / 1000, user: SessionUser(signedIn),
                consumePendingCredential: credential
            ),
            requestID: request.requestID
        )
        return ["idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken)]
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
    private func pendingSignIn(_ credential: String, projectId: String, request: PublicRequest) async throws
        -> (InspectPendingCredential.Result, Account)
    {
        let pending = try await PeerCall.call(
            sessions, InspectPendingCredential.self, .init(mfaPendingCredential: credential), requestID: request.requestID
        )
        guard pending.projectId == projectId else { throw IdentityToolkitError.business("INVALID_MFA_PENDING_CREDENTIAL") }
        if let tenantId = request.body["tenantId"]?.stringValue, tenantId != pending.tenantId {
            throw IdentityToolkitError.business("TENANT_ID_MISMATCH")
        }
        do {
            let account = try await PeerCall.call(
                registry, GetAccount.self,
                .init(projectId: pending.projectId, tenantId: pending.tenantId, localId: pending.localId),
                requestID: request.requestID
            )
            return (pending, account)
        } catch let error as IdentityToolkitError where error.message == "USER_NOT_FOUND" {
            throw IdentityToolkitError.business("INVALID_MFA_PENDING_CREDENTIAL")
        }
    }
}
