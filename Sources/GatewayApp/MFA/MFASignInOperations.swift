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
struct MFASignInOperations: Sendable {
    let pendingSignIns: PendingSignIns
    let kinds: SecondFactorKinds
    let phone: PhoneChallenges
    let cachedSettings: CachedSettings
    let finisher: MFASignInFinisher

    init(
        registry: PeerClient<FactorRegistryAPI>, sessions: PeerClient<SessionTokenAPI>, challenges: PeerClient<ChallengeIssuerAPI>,
        phone: PhoneChallenges, keys: TokenSealKeys,
        cachedSettings: CachedSettings, recoveryNotice: RecoveryCodeNotice
    ) {
        let pendingSignIns = PendingSignIns(registry: registry, sessions: sessions, keys: keys)
        self.pendingSignIns = pendingSignIns
        self.kinds = SecondFactorKinds(
            phone: PhoneFactor(phone: phone, pendingSignIns: pendingSignIns),
            totp: TOTPFactor(challenges: challenges, pendingSignIns: pendingSignIns),
            recoveryCode: RecoveryCodeFactor(challenges: challenges, pendingSignIns: pendingSignIns, notice: recoveryNotice)
        )
        self.phone = phone
        self.cachedSettings = cachedSettings
        self.finisher = MFASignInFinisher(registry: registry, sessions: sessions, functions: phone.functions)
    }

    func start(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(StartMFASignInRequest.self)
        let credential = body.mfaPendingCredential.nonEmpty
        let sealed = await pendingSignIns.sealedFacts(credential, tenantId: body.tenantId, request: request)
        let settings = try await scopeSettings(
            sealed, tenantId: body.tenantId, credential: body.mfaPendingCredential, request: request
        )
        try kinds.phone.requireEnabled(settings)
        guard let credential else {
            throw IdentityToolkitError(.missingMFAPendingCredential, detail: "Request does not have MFA pending credential.")
        }
        guard let enrollmentId = body.mfaEnrollmentId.nonEmpty else { throw IdentityToolkitError.missingMFAEnrollmentID }
        let pending = try await pendingSignIns.resolve(
            credential, sealed: sealed, tenantId: body.tenantId, finishing: false, request: request
        )
        // A code costs money: the credential must be unused before one is sent, so it is asked
        // beside the account read (session-token has already said so for an unsealed credential).
        // A credential that finished its sign-in is used, even while its finalize may be retried.
        async let live = Result.capturing { try await pendingSignIns.requireLive(pending, finishing: false, request: request) }
        let read = await Result.capturing { try await pendingSignIns.account(of: pending, request: request) }
        try await live.get()
        let account = try read.get()
        guard let enrollment = account.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentId }) else {
            throw IdentityToolkitError(.mfaEnrollmentNotFound)
        }
        guard let number = SecondFactorKinds.of(enrollment.kind).startsSignIn(to: enrollment) else {
            throw IdentityToolkitError.mfaProviderNotSupported
        }
        let sessionInfo = try await phone.start(
            number: number, purpose: .signIn, account: account, proof: (body.phoneSignInInfo ?? .init()).proof,
            settings: settings, projectId: pending.facts.projectId, tenantId: pending.facts.tenantId, request: request
        )
        return try request.answer(StartMFASignInResponse(phoneResponseInfo: .init(sessionInfo: sessionInfo)))
    }

    /// The contract's order (§2.12), all of it here: `PROJECT_DISABLED`, the factor kind enabled,
    /// the credential present, the kind's own members, the credential valid, the factor's check
    /// beside the account's (the kind's ``SecondFactorKind/verifySignIn(_:pending:settings:request:)``),
    /// then the session.
    func finalize(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(FinalizeMFASignInRequest.self)
        let credential = body.mfaPendingCredential.nonEmpty
        let sealed = await pendingSignIns.sealedFacts(credential, tenantId: body.tenantId, request: request)
        let settings = try await scopeSettings(
            sealed, tenantId: body.tenantId, credential: body.mfaPendingCredential, request: request
        )
        let kind = kinds.kind { $0.isNamed(by: body) }
        try kind.requireEnabled(settings)
        guard let credential else { throw IdentityToolkitError(.missingCredential, detail: "Please set MFA Pending Credential.") }
        let proof = try type(of: kind).signInProof(body)
        let pending = try await pendingSignIns.resolve(
            credential, sealed: sealed, tenantId: body.tenantId, finishing: true, request: request)
        let passed = try await kind.verifySignIn(proof, pending: pending, settings: settings, request: request)
        let answer = try await finisher.finish(
            passed.pending, account: passed.account, secondFactor: type(of: kind).kind, enrollmentId: passed.enrollmentId,
            settings: settings, request: request
        )
        await kind.afterSignIn(passed, request: request)
        return answer
    }

    /// `PROJECT_DISABLED` first, from the gateway's cache, in the tenant the credential names
    /// (sealed), else the one the body or the credential's routing hint names.
    private func scopeSettings(
        _ sealed: InspectPendingCredential.Result?, tenantId named: String?, credential: String?, request: PublicRequest
    ) async throws -> AuthSettings {
        let tenantId = sealed.map(\.tenantId) ?? named ?? RoutingHint.tenant(ofScopedToken: credential)
        return try await cachedSettings.enabled(projectId: request.callerProjectId, tenantId: tenantId, requestID: request.requestID)
    }
}
