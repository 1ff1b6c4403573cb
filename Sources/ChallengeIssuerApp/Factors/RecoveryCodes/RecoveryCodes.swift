import Contracts
import Crypto
import Foundation
import Logging
import ServiceKit
import TenantStore

/// Recovery-code sets (docs/mfa-policy.md): ten single-use codes per set, stored as keyed hashes
/// (RecoveryCode), one set per recovery-code enrollment. A code is a second factor of last resort,
/// so its checks are TOTP's: the same wrong-code window and daily budget per set, the same audit
/// records, and decision 22's single use of a pending credential (FinishedSignIns). The statements
/// are ``RecoveryCodeRepository``'s.
struct RecoveryCodes: Sendable {
    let repository: RecoveryCodeRepository
    let hashKey: SymmetricKey
    let logger: Logger
    let maximumFailures: Int
    let failureWindow: Duration
    let budget: GuessingBudget
    let events: SecurityEventLog
    let finished: FinishedSignIns

    /// Replaces the enrollment's set (creating it the first time): the old codes and their budget
    /// go with it. A set of another user under the same id is refused.
    func generate(_ params: GenerateRecoveryCodes.Params) async throws -> GenerateRecoveryCodes.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let codes = (0..<RecoveryCode.setSize).map { _ in RecoveryCode.generate() }
        let hashes = codes.map { RecoveryCode.hash(RecoveryCode.normalised($0)!, enrollmentId: params.mfaEnrollmentId, key: hashKey) }
        guard
            let replaced = try await repository.replaceSet(
                enrollmentId: params.mfaEnrollmentId, localId: params.localId, hashes: hashes, in: schema
            )
        else { throw ChallengeRejection.enrollmentNotFound }
        logger.info("recovery codes generated", metadata: ["replaced": "\(replaced)"])
        return .init(codes: codes)
    }

    /// A code checked and used up in one transaction with its audit record and, for a sign-in, the
    /// finished attempt. Refusals are thrown after the commit, so a wrong code's count stands.
    func redeem(_ params: RedeemRecoveryCode.Params) async throws -> RedeemRecoveryCode.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let typed = RecoveryCode.normalised(params.code)
        // A malformed code is a wrong guess like any other; its hash matches nothing.
        let hash = typed.map { RecoveryCode.hash($0, enrollmentId: params.mfaEnrollmentId, key: hashKey) } ?? Data()
        let proof = FinishedSignIns.Proof.recoveryCode(enrollmentId: params.mfaEnrollmentId, codeHash: hash.base64EncodedString())
        let attempt = params.attempt ?? ""
        let daily = budget.rule(acceptedCodes: RecoveryCode.setSize)
        let limits = RecoveryCodeRepository.Limits(
            window: Double(failureWindow.components.seconds), maximumFailures: Int32(maximumFailures), capacity: daily.capacity,
            refill: daily.refillPerSecond
        )
        let (localId, enrollmentId) = (params.localId, params.mfaEnrollmentId)
        switch try await repository.redeem(
            enrollmentId: enrollmentId, localId: localId, hash: hash, attempt: attempt, proof: proof, limits: limits, in: schema
        ) {
        case .accepted(let remaining):
            events.countSecondFactorCheck(kind: .recoveryCode, outcome: .accepted)
            return .init(remaining: remaining)
        case .rejected:
            events.countSecondFactorCheck(kind: .recoveryCode, outcome: .rejected)
            throw ChallengeRejection.invalidCode
        case .throttled:
            events.countSecondFactorCheck(kind: .recoveryCode, outcome: .throttled)
            try await events.record(
                .rateLimitTripped, localId: localId, details: ["limit": "recovery codes per set", "enrollmentId": enrollmentId],
                in: schema
            )
            throw ChallengeRejection.tooManyAttempts
        case .missing:
            if !attempt.isEmpty, try await finished.proof(of: attempt, in: schema) != nil { throw FinishedSignIns.spent }
            throw ChallengeRejection.enrollmentNotFound
        case .finishedBefore(let earlier):
            // Decision 22: only the code that finished this sign-in passes it again, writing nothing.
            guard let earlier, earlier == proof, typed != nil else { throw FinishedSignIns.spent }
            let set = try await repository.unused(enrollmentId: enrollmentId, localId: localId, in: schema)
            return .init(remaining: set?.remaining ?? 0)
        }
    }

    func count(_ params: CountRecoveryCodes.Params) async throws -> CountRecoveryCodes.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard let set = try await repository.unused(enrollmentId: params.mfaEnrollmentId, localId: params.localId, in: schema) else {
            return .init(remaining: 0, generatedAt: nil)
        }
        return .init(remaining: set.remaining, generatedAt: TOTPFactors.iso8601(set.generatedAt))
    }

    /// The set of a withdrawn enrollment (DeleteTOTPFactor names either kind).
    func delete(enrollmentId: String, localId: String, in schema: TenantSchema) async throws {
        try await repository.delete(enrollmentId: enrollmentId, localId: localId, in: schema)
    }
}
