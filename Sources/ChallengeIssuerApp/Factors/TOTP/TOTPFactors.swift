import AuthVocabulary
import Contracts
import FactorTOTP
import Foundation
import IdentityToolkit
import JSONRPC
import PluginKit
import ServiceKit
import TenantStore

/// TOTP enrollment sessions and enrolled TOTP factors: what a code is worth and what follows from
/// it; the statements are ``TOTPFactorRepository``'s. Secrets are sealed at rest (AES-GCM with the
/// service's master key) and opened only to check a code; they never leave this service after the
/// enrollment answer.
struct TOTPFactors: Sendable {
    /// `nil` when `factors.enabled` leaves TOTP out: every TOTP call is then refused.
    let provider: TOTPFactorProvider?
    let repository: TOTPFactorRepository
    let sealer: SecretSealer
    /// How long an enrollment session lasts (`finalizeEnrollmentTime`).
    let enrollmentLifetime: Duration
    /// Wrong codes tolerated per factor (and per enrollment session) within `failureWindow`.
    let maximumFailures: Int
    let failureWindow: Duration
    /// Wrong codes per factor per day (docs/security.md, guessing budgets), on top of the window above.
    let budget: GuessingBudget
    /// The audit trail: each sign-in code's outcome is recorded by the statement that decides it.
    let events: SecurityEventLog
    /// Decision 22: what each pending credential's sign-in was finished with.
    let finished: FinishedSignIns

    static let disabled = ChallengeRejection.error(.totpMFADisabled)

    func startEnrollment(_ params: StartTOTPEnrollment.Params) async throws -> StartTOTPEnrollment.Result {
        guard let provider else { throw Self.disabled }
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let issued = provider.newChallenge(now: Date(), lifetime: enrollmentLifetime)
        let sessionInfo = SessionInfo.make()
        guard let key = SessionInfo.key(sessionInfo) else {
            throw RPCError.internalError()
        }
        let sealed = try sealer.seal(Data(issued.challenge.secret), keyID: key)
        try await repository.insertEnrollmentSession(
            key: key, localId: params.localId, sealed: sealed, expiresAt: issued.challenge.expiresAt, in: schema
        )
        return .init(
            sessionInfo: sessionInfo, sharedSecretKey: issued.deliverable, verificationCodeLength: 6, hashingAlgorithm: "SHA1",
            periodSec: 30, finalizeEnrollmentTime: Self.iso8601(issued.challenge.expiresAt)
        )
    }

    /// `totp.importSecrets`: each secret sealed under its enrollment id, stored as a factor that has
    /// accepted no step yet. An enrollment id another user's factor has refuses that entry; the same
    /// user's is replaced (an import that overwrites).
    func importSecrets(_ params: ImportTOTPSecrets.Params) async throws -> ImportTOTPSecrets.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        var refused: [ImportTOTPSecrets.Refusal] = []
        for (index, entry) in params.secrets.enumerated() {
            guard let secret = Base32.decode(entry.sharedSecretKey), (10...64).contains(secret.count) else {
                refused.append(.init(index: index, message: "totpInfo.sharedSecretKey must be base32 of 10 to 64 bytes"))
                continue
            }
            guard entry.mfaEnrollmentId.utf8.count <= 128, entry.localId.utf8.count <= 128 else {
                refused.append(.init(index: index, message: "Enrollment id is too long."))
                continue
            }
            let sealed = try sealer.seal(Data(secret), keyID: entry.mfaEnrollmentId)
            let stored = try await repository.importFactor(
                enrollmentId: entry.mfaEnrollmentId, localId: entry.localId, sealed: sealed, in: schema
            )
            if !stored { refused.append(.init(index: index, message: "Enrollment id already exists.")) }
        }
        return .init(refused: refused)
    }

    /// Finishes an enrollment: under the session's lock, a good code uses the session up and
    /// stores the factor; a wrong one counts an attempt. Decision 22: a used session is unknown,
    /// except to an exact retry of the enrollment that used it (the same session and the code of
    /// the step it was finished with), which passes again and writes nothing.
    func finalizeEnrollment(_ params: FinalizeTOTPEnrollment.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard let key = SessionInfo.key(params.sessionInfo) else { throw ChallengeRejection.invalidSession }
        guard let provider else { throw Self.disabled }
        let (sealer, maximumFailures) = (self.sealer, self.maximumFailures)
        let refusal: RPCError? = try await repository.finishEnrollment(key: key, in: schema) { session in
            guard let session, session.localId == params.localId, let sealedSecret = session.sealedSecret else {
                return (.nothing, ChallengeRejection.invalidSession)
            }
            let secret = try sealer.open(Data(sealedSecret.readableBytesView), keyID: key)
            let challenge = TOTPChallenge(
                expiresAt: session.expiresAt, secret: Array(secret), adjacentIntervals: params.adjacentIntervals
            )
            if session.consumed {
                guard session.consumedBy == params.mfaEnrollmentId, let consumedStep = session.consumedStep,
                    case .accepted(let step) = provider.verify(params.verificationCode, against: challenge, now: Date()),
                    step == consumedStep
                else { return (.nothing, ChallengeRejection.invalidSession) }
                return (.nothing, nil)
            }
            if Int(session.attempts) >= maximumFailures { return (.nothing, ChallengeRejection.tooManyAttempts) }
            switch provider.verify(params.verificationCode, against: challenge, now: Date()) {
            case .accepted(let step):
                let resealed = try sealer.seal(secret, keyID: params.mfaEnrollmentId)
                return (
                    .enroll(enrollmentId: params.mfaEnrollmentId, localId: params.localId, sealedFactor: resealed, step: step ?? 0), nil
                )
            case .expired:
                return (.nothing, ChallengeRejection.sessionExpired)
            case .wrongCode, .replayed:
                return (.countAttempt, ChallengeRejection.invalidCode)
            }
        }
        if let refusal { throw refusal }
    }

    /// Checks a sign-in code with one commit:
    /// 1. read the secret, the last accepted step, whether the factor is throttled and whether the
    ///    sign-in (`attempt`) was finished already (a read, so nothing to commit);
    /// 2. check the code here;
    /// 3. one statement decides and records the outcome under the row's lock
    ///    (``TOTPFactorRepository/recordSignInOutcome(enrollmentId:localId:attempt:good:step:bound:proof:limits:in:)``).
    /// The answer is what that statement did, never what step 2 found: however many guesses arrive at
    /// once and get checked, at most `maximumFailures` outcomes per window reach anyone, and of
    /// two requests with the same code only one can move the step past it. A crash before the
    /// statement answers nothing and records nothing.
    ///
    /// Decision 22: a finished sign-in passes again only as an exact retry (this factor, the code
    /// of the step it spent), writing nothing; anything else from its credential is refused
    /// (`INVALID_MFA_PENDING_CREDENTIAL`) before anything is written.
    func verify(_ params: VerifyTOTP.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard let provider else { throw Self.disabled }
        let daily = budget.rule(acceptedCodes: 2 * max(0, params.adjacentIntervals) + 1)
        let limits = TOTPFactorRepository.SignInLimits(
            window: Double(failureWindow.components.seconds), maximumFailures: Int32(maximumFailures), capacity: daily.capacity,
            refill: daily.refillPerSecond
        )
        // An attempt is never empty; '' finds no finished sign-in.
        let attempt = params.attempt ?? ""
        guard
            let factor = try await repository.factorForSignIn(
                enrollmentId: params.mfaEnrollmentId, localId: params.localId, attempt: attempt, limits: limits, in: schema
            )
        else {
            // No such factor of this user; a finished sign-in is refused as such first.
            if !attempt.isEmpty, try await finished.proof(of: attempt, in: schema) != nil { throw FinishedSignIns.spent }
            throw ChallengeRejection.enrollmentNotFound
        }
        let secret = try sealer.open(Data(factor.sealedSecret.readableBytesView), keyID: params.mfaEnrollmentId)
        if let finishedProof = factor.finishedProof {
            try retry(params, finishedWith: FinishedSignIns.Proof(text: finishedProof), secret: secret)
            return
        }
        if factor.throttled {
            try await events.record(
                .rateLimitTripped, localId: params.localId,
                details: ["limit": "TOTP codes per factor", "enrollmentId": params.mfaEnrollmentId],
                in: schema
            )
            throw ChallengeRejection.tooManyAttempts
        }
        let challenge = TOTPChallenge(
            expiresAt: .distantFuture, secret: Array(secret), adjacentIntervals: params.adjacentIntervals,
            lastAcceptedStep: factor.lastStep
        )
        // A good code records its step (the last one again if the provider names none, as long as
        // nobody moved it meanwhile); anything else only counts a failure.
        var (good, step, bound) = (false, factor.lastStep, factor.lastStep)
        if case .accepted(let matched) = provider.verify(params.verificationCode, against: challenge, now: Date()) {
            (good, step, bound) = (true, matched ?? factor.lastStep, matched ?? factor.lastStep + 1)
        }
        let accepted: Bool?
        do {
            accepted = try await repository.recordSignInOutcome(
                enrollmentId: params.mfaEnrollmentId, localId: params.localId, attempt: attempt, good: good, step: step,
                bound: bound, proof: FinishedSignIns.Proof.totp(enrollmentId: params.mfaEnrollmentId, step: step).text,
                limits: limits, in: schema
            )
        } catch  where UniqueViolation.matches(error) {
            // Another success of the same attempt committed first.
            try await retryAfterRace(params, secret: secret, in: schema)
            return
        }
        if let accepted { events.count(accepted ? .secondFactorSucceeded : .secondFactorFailed, schema) }
        events.countSecondFactorCheck(kind: .totp, outcome: accepted.map { $0 ? .accepted : .rejected } ?? .throttled)
        switch accepted {
        case true?: return
        // A wrong code, or a good one whose step another request recorded first (a replay).
        case false?: throw ChallengeRejection.invalidCode
        // A parallel exact retry finished this sign-in first, or throttled since the read (other
        // guesses were counted first), or withdrawn meanwhile.
        case nil:
            if !attempt.isEmpty, try await finished.proof(of: attempt, in: schema) != nil {
                try await retryAfterRace(params, secret: secret, in: schema)
                return
            }
            let exists = try await repository.exists(enrollmentId: params.mfaEnrollmentId, localId: params.localId, in: schema)
            throw exists ? ChallengeRejection.tooManyAttempts : ChallengeRejection.enrollmentNotFound
        }
    }

    /// Decision 22: a sign-in already finished passes again only with the same factor and the code
    /// of the step it spent (compared in constant time, at any time while it is remembered).
    private func retry(_ params: VerifyTOTP.Params, finishedWith proof: FinishedSignIns.Proof?, secret: Data) throws {
        guard case .totp(let enrollmentId, let step)? = proof, enrollmentId == params.mfaEnrollmentId, let provider,
            case .accepted = provider.verify(
                params.verificationCode,
                against: TOTPChallenge(expiresAt: .distantFuture, secret: Array(secret), adjacentIntervals: 0),
                now: Date(timeIntervalSince1970: Double(step * TOTPFactorProvider.period))
            )
        else { throw FinishedSignIns.spent }
    }

    /// Another request of the same attempt finished the sign-in while this one was checked.
    private func retryAfterRace(_ params: VerifyTOTP.Params, secret: Data, in schema: TenantSchema) async throws {
        guard let attempt = params.attempt, let proof = try await finished.proof(of: attempt, in: schema) else {
            throw FinishedSignIns.spent
        }
        try retry(params, finishedWith: proof, secret: secret)
    }

    func delete(_ params: DeleteTOTPFactor.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        try await repository.delete(enrollmentId: params.mfaEnrollmentId, localId: params.localId, in: schema)
    }

    /// A page of factors whose secret is at least `olderThanSeconds` old, for factor-registry's
    /// orphan sweep. A schema not (or no longer) there has none.
    func listStored(_ params: ListStoredTOTPFactors.Params) async throws -> ListStoredTOTPFactors.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard (1...ListStoredTOTPFactors.maximumLimit).contains(params.limit), params.olderThanSeconds >= 0 else {
            throw RPCError.invalidParams("limit must be 1-\(ListStoredTOTPFactors.maximumLimit), olderThanSeconds not negative")
        }
        return .init(
            factors: try await repository.stored(
                olderThan: Double(params.olderThanSeconds), after: params.after ?? "", limit: params.limit, in: schema
            )
        )
    }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
