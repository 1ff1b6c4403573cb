import AuthVocabulary
import Contracts
import IdentityToolkit
import ServiceKit

/// A sign-in that stopped at the MFA branch, as the gateway knows it while finishing it: the
/// credential, the facts it names (project, tenant, user, first factor), and whether session-token
/// has already said the credential is unused.
struct PendingSignIn: Sendable {
    let credential: String
    let facts: InspectPendingCredential.Result
    /// Read from session-token (`pendingCredential.inspect`) rather than opened from the sealed text.
    let confirmedLive: Bool
}

/// Where the gateway learns about pending sign-ins: the sealed facts a credential carries (no
/// call), else session-token's `pendingCredential.inspect` (one call), and the account they name.
struct PendingSignIns: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let sessions: PeerClient<SessionTokenAPI>
    let keys: TokenSealKeys

    /// The facts of a sealed credential of the caller's project whose tenant is `tenantId` (when
    /// the body names one). `nil` for anything else: `resolve` then asks session-token, whose answer
    /// says in the contract's terms what is wrong (or that an unsealed credential is fine).
    func sealedFacts(_ credential: String?, tenantId: String?, request: PublicRequest) async -> InspectPendingCredential.Result? {
        guard let credential, let facts = await keys.pendingCredential(credential, requestID: request.requestID),
            facts.projectId == request.callerProjectId,
            (tenantId ?? facts.tenantId) == facts.tenantId
        else { return nil }
        return InspectPendingCredential.Result(
            projectId: facts.projectId, tenantId: facts.tenantId, localId: facts.localId, signInProvider: facts.signInProvider
        )
    }

    /// The pending sign-in: the sealed facts as they are, or session-token's reading of the
    /// credential, which must belong to the caller's project and `tenantId` (the body's, if any).
    /// `finishing`: a finalize asks, and may be the retry of one whose answer was lost.
    func resolve(
        _ credential: String, sealed: InspectPendingCredential.Result?, tenantId: String?, finishing: Bool, request: PublicRequest
    ) async throws -> PendingSignIn {
        if let sealed { return PendingSignIn(credential: credential, facts: sealed, confirmedLive: false) }
        let facts = try await inspect(credential, finishing: finishing, request: request)
        guard facts.projectId == request.callerProjectId else { throw IdentityToolkitError(.invalidMFAPendingCredential) }
        if let tenantId, tenantId != facts.tenantId {
            throw IdentityToolkitError(.tenantIDMismatch)
        }
        return PendingSignIn(credential: credential, facts: facts, confirmedLive: true)
    }

    /// A credential used up or unknown to session-token is refused as such. Asked only when the
    /// answer is a refusal anyway (or before a code is sent), never on a sign-in that succeeds.
    /// `finishing`: a finalize asks, whose credential may have finished a sign-in whose answer was
    /// lost; before a code is sent nothing may pass a used credential (decision 22).
    func requireLive(_ pending: PendingSignIn, finishing: Bool = true, request: PublicRequest) async throws {
        guard !pending.confirmedLive else { return }
        _ = try await inspect(pending.credential, finishing: finishing, request: request)
    }

    /// The pending sign-in's account; a credential whose account is gone is no longer valid.
    func account(of pending: PendingSignIn, request: PublicRequest) async throws -> Account {
        try await refusingGoneAccount {
            try await PeerCall.call(
                registry, GetAccount.self,
                .init(projectId: pending.facts.projectId, tenantId: pending.facts.tenantId, localId: pending.facts.localId),
                requestID: request.requestID
            )
        }
    }

    /// The account with the factor the request names, read without recording anything
    /// (`MFA_ENROLLMENT_NOT_FOUND` when the account has no such factor of that kind).
    func account(of pending: PendingSignIn, with enrollmentId: String, kind: FactorKind, request: PublicRequest) async throws
        -> Account
    {
        try await refusingGoneAccount {
            try await PeerCall.call(
                registry, CheckFactor.self,
                .init(
                    projectId: pending.facts.projectId, tenantId: pending.facts.tenantId, localId: pending.facts.localId,
                    enrollmentId: enrollmentId, kind: kind
                ),
                requestID: request.requestID
            )
        }
    }

    /// A code-based kind's second step (TOTP, recovery codes): `check` (the code at challenge-issuer)
    /// beside the account's check with that factor, one hop. A refusal is answered in the
    /// contract's order: the credential's own validity, then the account's
    /// (`MFA_ENROLLMENT_NOT_FOUND`), then the code's.
    func passing(
        _ pending: PendingSignIn, enrollmentId: String, kind: FactorKind, request: PublicRequest,
        check: @Sendable () async throws -> Void
    ) async throws -> PassedSecondFactor {
        async let accountCheck = Result.capturing {
            try await account(of: pending, with: enrollmentId, kind: kind, request: request)
        }
        let checked = await Result.capturing { try await check() }
        let checkedAccount = await accountCheck
        if case .failure(let refusal) = checked {
            try await requireLive(pending, request: request)
            _ = try checkedAccount.get()
            throw refusal
        }
        if case .failure = checkedAccount { try await requireLive(pending, request: request) }
        return PassedSecondFactor(pending: pending, account: try checkedAccount.get(), enrollmentId: enrollmentId)
    }

    private func inspect(_ credential: String, finishing: Bool, request: PublicRequest) async throws
        -> InspectPendingCredential.Result
    {
        try await PeerCall.call(
            sessions, InspectPendingCredential.self, .init(mfaPendingCredential: credential, finishing: finishing),
            requestID: request.requestID
        )
    }

    /// A pending sign-in whose account was deleted has nothing left to finish.
    func refusingGoneAccount<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as IdentityToolkitError where error.code == .userNotFound {
            throw IdentityToolkitError(.invalidMFAPendingCredential)
        }
    }
}
