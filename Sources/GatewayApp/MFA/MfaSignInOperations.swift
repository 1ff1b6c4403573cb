import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v2/accounts/mfaSignIn:start|finalize` (contract §2.11-§2.12): the second half of a sign-in that
/// stopped at the MFA branch. Finishing uses the pending credential up (one session per credential)
/// and records the sign-in (`lastLoginAt`, the ID token's `auth_time`).
///
/// A complete request whose credential opens (its facts sealed in it) makes at most two calls in
/// sequence, with the settings from the gateway's cache (issue 26); anything else takes the
/// sequential path, which checks in the contract's order one call after another.
struct MfaSignInOperations: Sendable {
    let registry: RPCClient
    let sessions: RPCClient
    let challenges: RPCClient
    let phone: PhoneChallenges
    let keys: TokenSealKeys
    let cachedSettings: CachedSettings

    func start(_ request: PublicRequest) async throws -> JSONValue {
        let body = request.body
        let settings: AuthSettings
        let pending: InspectPendingCredential.Result
        let account: Account
        let enrollmentId: String
        if let credential = Self.nonEmpty(body["mfaPendingCredential"]), let enrollment = Self.nonEmpty(body["mfaEnrollmentId"]),
            let settled = try await settledSignIn(credential, request: request)
        {
            guard settled.settings.mfaConfig.smsEnabled else { throw IdentityToolkitError.smsMFADisabled }
            // Hop 1: the credential still unused beside its account; hop 2 sends the code.
            async let live = Self.outcome { try await requireLive(credential, request: request) }
            let found = await Self.outcome { try await self.account(of: settled.pending, request: request) }
            try await live.get()
            (settings, pending, account, enrollmentId) = (settled.settings, settled.pending, try found.get(), enrollment)
        } else {
            let projectId: String
            (settings, projectId) = try await prelude(request)
            guard settings.mfaConfig.smsEnabled else { throw IdentityToolkitError.smsMFADisabled }
            guard let credential = Self.nonEmpty(body["mfaPendingCredential"]) else {
                throw IdentityToolkitError(.missingMFAPendingCredential, detail: "Request does not have MFA pending credential.")
            }
            guard let enrollment = Self.nonEmpty(body["mfaEnrollmentId"]) else {
                throw IdentityToolkitError.missingMFAEnrollmentID
            }
            (pending, account) = try await pendingSignIn(credential, projectId: projectId, request: request)
            enrollmentId = enrollment
        }
        guard let enrollment = account.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentId }) else {
            throw IdentityToolkitError(.mfaEnrollmentNotFound)
        }
        guard enrollment.kind == "phone", let number = enrollment.phoneNumber else {
            throw IdentityToolkitError.mfaProviderNotSupported
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
        // A complete request whose credential opens takes two hops (issue 26): the factor's check
        // beside the account's, then the session beside the sign-in's record. Any doubt about the
        // request sends it down the sequential path, which answers in contract order.
        if let credential = Self.nonEmpty(body["mfaPendingCredential"]), let facts = await sealedFacts(credential, request: request) {
            let settings = try await cachedSettings.enabled(
                projectId: facts.projectId, tenantId: facts.tenantId, requestID: request.requestID
            )
            if totp, let enrollmentId = Self.nonEmpty(body["mfaEnrollmentId"]),
                let code = Self.nonEmpty(body["totpVerificationInfo"]?["verificationCode"])
            {
                guard let adjacentIntervals = settings.mfaConfig.totpAdjacentIntervals else { throw IdentityToolkitError.totpMFADisabled }
                let check = TotpCheck(
                    code: code, credential: credential, enrollmentId: enrollmentId, adjacentIntervals: adjacentIntervals,
                    pending: facts.pending
                )
                return try await finishTotp(check, request: request)
            }
            if !totp, let info = body["phoneVerificationInfo"], info["androidVerificationProof"] == nil,
                let code = Self.nonEmpty(info["code"]), let sessionInfo = Self.nonEmpty(info["sessionInfo"])
            {
                guard settings.mfaConfig.smsEnabled else { throw IdentityToolkitError.smsMFADisabled }
                return try await finishPhone(
                    credential, pending: facts.pending, sessionInfo: sessionInfo, code: code, request: request
                )
            }
        }
        let (settings, projectId) = try await prelude(request)
        if totp {
            guard settings.mfaConfig.totpAdjacentIntervals != nil else { throw IdentityToolkitError.totpMFADisabled }
        } else {
            guard settings.mfaConfig.smsEnabled else { throw IdentityToolkitError.smsMFADisabled }
        }
        guard let credential = Self.nonEmpty(body["mfaPendingCredential"]) else {
            throw IdentityToolkitError(.missingCredential, detail: "Please set MFA Pending Credential.")
        }
        let enrollment: Enrollment
        let pending: InspectPendingCredential.Result
        if totp {
            guard let enrollmentId = Self.nonEmpty(body["mfaEnrollmentId"]) else {
                throw IdentityToolkitError.missingMFAEnrollmentID
            }
            guard let code = Self.nonEmpty(body["totpVerificationInfo"]?["verificationCode"]) else {
                throw IdentityToolkitError(.missingCode)
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
                throw IdentityToolkitError.mfaProviderNotSupported
            }
            if info["androidVerificationProof"] != nil {
                throw IdentityToolkitError.unsupported("androidVerificationProof is unsupported!")
            }
            guard let code = Self.nonEmpty(info["code"]) else { throw IdentityToolkitError(.missingCode) }
            guard let sessionInfo = Self.nonEmpty(info["sessionInfo"]) else {
                throw IdentityToolkitError(.missingSessionInfo)
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
            guard let found = Self.phoneEnrollment(number, of: account) else {
                throw IdentityToolkitError(.mfaEnrollmentNotFound)
            }
            enrollment = found
        }
        return try await finish(
            credential, pending: pending, secondFactor: enrollment.kind, enrollmentId: enrollment.mfaEnrollmentId, request: request
        )
    }

    /// `MFA_ENROLLMENT_NOT_FOUND` unless the account has this TOTP factor, then the code check.
    private func verifyTotp(_ check: TotpCheck, account: Account, request: PublicRequest) async throws -> Enrollment {
        guard let found = Self.totpEnrollment(check.enrollmentId, of: account) else {
            throw IdentityToolkitError(.mfaEnrollmentNotFound)
        }
        try await checkTotpCode(check, request: request)
        return found
    }

    /// The fast TOTP finalize: the code checked beside the account (hop 1), then the session beside
    /// the sign-in's record (hop 2). A refusal is answered in contract order: the credential's
    /// own validity, then the account's checks, then the code's.
    private func finishTotp(_ check: TotpCheck, request: PublicRequest) async throws -> JSONValue {
        async let accountCheck = Self.outcome {
            try await checkedAccount(check.pending, enrollmentId: check.enrollmentId, kind: "totp", request: request)
        }
        let code = await Self.outcome { try await checkTotpCode(check, request: request) }
        let account = await accountCheck
        if case .failure(let refusal) = code {
            try await requireLive(check.credential, request: request)
            _ = try account.get()
            throw refusal
        }
        if case .failure = account { try await requireLive(check.credential, request: request) }
        return try await finishFast(
            check.credential, pending: check.pending, account: try account.get(), secondFactor: "totp",
            enrollmentId: check.enrollmentId, request: request
        )
    }

    /// The fast SMS finalize: the code checked beside the account read (hop 1), the enrollment
    /// found by the number the code proved, then the session beside the record (hop 2).
    private func finishPhone(
        _ credential: String, pending: InspectPendingCredential.Result, sessionInfo: String, code: String, request: PublicRequest
    ) async throws -> JSONValue {
        async let accountRead = Self.outcome { try await self.account(of: pending, request: request) }
        let verified = await Self.outcome {
            try await phone.verify(
                sessionInfo: sessionInfo, code: code, purpose: "signIn", localId: pending.localId, projectId: pending.projectId,
                tenantId: pending.tenantId, attempt: FinalizeAttempt.signIn(finishing: credential), request: request
            )
        }
        let read = await accountRead
        let number: String
        switch verified {
        case .failure(let refusal):
            try await requireLive(credential, request: request)
            throw refusal
        case .success(let proved): number = proved
        }
        guard case .success(let found) = read, let enrollment = Self.phoneEnrollment(number, of: found) else {
            try await requireLive(credential, request: request)
            _ = try read.get()
            throw IdentityToolkitError(.mfaEnrollmentNotFound)
        }
        return try await finishFast(
            credential, pending: pending, account: found, secondFactor: "phone", enrollmentId: enrollment.mfaEnrollmentId,
            request: request
        )
    }

    /// Hop 2 of a fast finalize: the session (using the credential up, a durable commit) beside
    /// the sign-in's record on the account (`lastLoginAt`, an asynchronous commit: the session is
    /// the sign-in's durable record). Both carry the same time, the ID token's `auth_time`. The
    /// record requires the factor again, so a factor withdrawn between the hops refuses the answer.
    private func finishFast(
        _ credential: String, pending: InspectPendingCredential.Result, account: Account, secondFactor: String,
        enrollmentId: String, request: PublicRequest
    ) async throws -> JSONValue {
        if account.disabled { throw IdentityToolkitError(.userDisabled) }
        let signedInAt = Int64(Date().timeIntervalSince1970 * 1000)
        async let recorded = Self.outcome {
            try await PeerCall.call(
                registry, RecordSignIn.self,
                .init(
                    projectId: pending.projectId, tenantId: pending.tenantId, localId: pending.localId,
                    requiredEnrollment: enrollmentId, requiredKind: secondFactor, signedInAt: signedInAt, mode: .asynchronous
                ),
                requestID: request.requestID
            )
        }
        let tokens = await Self.outcome {
            try await PeerCall.call(
                sessions, IssueSession.self,
                .init(
                    projectId: pending.projectId, tenantId: pending.tenantId, localId: pending.localId,
                    signInProvider: pending.signInProvider, secondFactor: secondFactor, secondFactorIdentifier: enrollmentId,
                    authTime: signedInAt / 1000, user: SessionUser(account), consumePendingCredential: credential
                ),
                requestID: request.requestID
            )
        }
        let issued = try tokens.get()
        do {
            _ = try await recorded.get()
        } catch let error as IdentityToolkitError where error.code == .userNotFound {
            throw IdentityToolkitError(.invalidMFAPendingCredential)
        }
        return ["idToken": .string(issued.idToken), "refreshToken": .string(issued.refreshToken)]
    }

    /// The account of a pending sign-in with the factor it names, read without recording anything.
    private func checkedAccount(
        _ pending: InspectPendingCredential.Result, enrollmentId: String, kind: String, request: PublicRequest
    ) async throws -> Account {
        do {
            return try await PeerCall.call(
                registry, RecordSignIn.self,
                .init(
                    projectId: pending.projectId, tenantId: pending.tenantId, localId: pending.localId,
                    requiredEnrollment: enrollmentId, requiredKind: kind, mode: .check
                ),
                requestID: request.requestID
            )
        } catch let error as IdentityToolkitError where error.code == .userNotFound {
            throw IdentityToolkitError(.invalidMFAPendingCredential)
        }
    }

    /// On a refused code only (never on the hot path): a credential used up or unknown to
    /// session-token is refused as such first, as the sequential order does.
    private func requireLive(_ credential: String, request: PublicRequest) async throws {
        _ = try await PeerCall.call(
            sessions, InspectPendingCredential.self, .init(mfaPendingCredential: credential, finishing: true),
            requestID: request.requestID
        )
    }

    /// The facts of a sealed credential of the caller's project whose tenant is the body's (when
    /// the body names one); `nil` sends the request down the sequential path.
    private func sealedFacts(_ credential: String, request: PublicRequest) async -> SealedPendingCredential? {
        guard let facts = await keys.pendingCredential(credential, requestID: request.requestID), facts.projectId == request.callerProjectId,
            (request.body["tenantId"]?.stringValue ?? facts.tenantId) == facts.tenantId
        else { return nil }
        return facts
    }

    private static func outcome<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    private static func phoneEnrollment(_ number: String, of account: Account) -> Enrollment? {
        // Found by number, real or masked (iOS finishes with the masked one).
        account.mfaInfo?.first(where: {
            $0.kind == "phone" && ($0.phoneNumber == number || $0.phoneNumber.map(PhoneNumber.masked) == number)
        })
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
        } catch let error as IdentityToolkitError where error.code == .userNotFound {
            throw IdentityToolkitError(.invalidMFAPendingCredential)
        }
        if signedIn.disabled { throw IdentityToolkitError(.userDisabled) }
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

    /// The settings and pending sign-in of a request whose credential opens (sealed facts, the
    /// settings from the gateway's cache): no call. `nil` sends the request down the sequential
    /// path, which answers in contract order. `PROJECT_DISABLED` comes first, as always.
    private func settledSignIn(_ credential: String, request: PublicRequest) async throws
        -> (settings: AuthSettings, pending: InspectPendingCredential.Result)?
    {
        guard let facts = await sealedFacts(credential, request: request) else { return nil }
        let settings = try await cachedSettings.enabled(projectId: facts.projectId, tenantId: facts.tenantId, requestID: request.requestID)
        return (settings, facts.pending)
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
        guard pending.projectId == projectId else { throw IdentityToolkitError(.invalidMFAPendingCredential) }
        if let tenantId = request.body["tenantId"]?.stringValue, tenantId != pending.tenantId {
            throw IdentityToolkitError(.tenantIDMismatch)
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
        } catch let error as IdentityToolkitError where error.code == .userNotFound {
            throw IdentityToolkitError(.invalidMFAPendingCredential)
        }
    }
}

extension SealedPendingCredential {
    /// The facts as session-token's `pendingCredential.inspect` would answer them.
    var pending: InspectPendingCredential.Result {
        .init(projectId: projectId, tenantId: tenantId, localId: localId, signInProvider: signInProvider)
    }
}
