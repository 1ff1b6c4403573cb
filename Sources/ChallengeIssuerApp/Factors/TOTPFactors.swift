import AuthVocabulary
import Contracts
import FactorTOTP
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import PluginKit
import PostgresNIO
import ServiceKit
import TenantStore

/// TOTP enrollment sessions and enrolled TOTP factors. Secrets are sealed at rest (AES-GCM with the
/// service's master key) and opened only to check a code; they never leave this service after the
/// enrollment answer.
struct TOTPFactors: Sendable {
    /// `nil` when `factors.enabled` leaves TOTP out: every TOTP call is then refused.
    let provider: TOTPFactorProvider?
    let client: Database
    let sealer: SecretSealer
    let logger: Logger
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
        let now = Date()
        let issued = provider.newChallenge(now: now, lifetime: enrollmentLifetime)
        let sessionInfo = SessionInfo.make()
        let secret = issued.challenge.secret
        guard let key = SessionInfo.key(sessionInfo) else {
            throw RPCError.internalError()
        }
        let sealed = try sealer.seal(Data(secret), keyID: key)
        try await client.query(
            cached: """
                INSERT INTO \(sql: schema.qualified("verification_sessions"))
                (session_id, kind, local_id, secret_sealed, purpose, expires_at)
                VALUES (\(key), 'totp', \(params.localId), \(ByteBuffer(bytes: sealed)), 'enroll', \(issued.challenge.expiresAt))
                """,
            logger: logger
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
        let factors = schema.qualified("totp_factors")
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
            let rows = try await client.query(
                """
                INSERT INTO \(sql: factors) (enrollment_id, local_id, secret_sealed, last_step)
                VALUES (\(entry.mfaEnrollmentId), \(entry.localId), \(ByteBuffer(bytes: sealed)), 0)
                ON CONFLICT (enrollment_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, last_step = 0, failures = 0,
                    failure_window_start = NULL
                WHERE \(sql: factors).local_id = excluded.local_id
                RETURNING 1
                """,
                logger: logger
            )
            var stored = false
            for try await _ in rows.decode(Int.self) { stored = true }
            if !stored { refused.append(.init(index: index, message: "Enrollment id already exists.")) }
        }
        return .init(refused: refused)
    }

    enum Outcome: Sendable {
        case accepted
        case rejected(RPCError)
    }

    func finalizeEnrollment(_ params: FinalizeTOTPEnrollment.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard let key = SessionInfo.key(params.sessionInfo) else { throw ChallengeRejection.invalidSession }
        let sessions = schema.qualified("verification_sessions")
        let factors = schema.qualified("totp_factors")
        guard let provider else { throw Self.disabled }
        let (sealer, logger, maximumFailures) = (self.sealer, self.logger, self.maximumFailures)
        let outcome: Outcome = try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                cached: """
                    SELECT local_id, secret_sealed, expires_at, consumed_at IS NOT NULL, attempts, consumed_by, consumed_step
                    FROM \(sql: sessions) WHERE session_id = \(key) AND kind = 'totp' FOR UPDATE
                    """,
                logger: logger
            )
            var found: (String?, ByteBuffer?, Date, Bool, Int32, String?, Int64?)?
            for try await row in rows.decode((String?, ByteBuffer?, Date, Bool, Int32, String?, Int64?).self) { found = row }
            guard let (owner, sealedBuffer, expiresAt, consumed, attempts, consumedBy, consumedStep) = found,
                owner == params.localId, let sealedBuffer
            else { return .rejected(ChallengeRejection.invalidSession) }
            let secret = try sealer.open(Data(sealedBuffer.readableBytesView), keyID: key)
            let challenge = TOTPChallenge(expiresAt: expiresAt, secret: Array(secret), adjacentIntervals: params.adjacentIntervals)
            // Decision 22: a used session is unknown, except to an exact retry of the enrollment
            // that used it (the same session and the code of the step it was finished with), which
            // passes again and writes nothing. Anything else changes nothing either.
            if consumed {
                guard consumedBy == params.mfaEnrollmentId, let consumedStep,
                    case .accepted(let step) = provider.verify(params.verificationCode, against: challenge, now: Date()),
                    step == consumedStep
                else { return .rejected(ChallengeRejection.invalidSession) }
                return .accepted
            }
            if Int(attempts) >= maximumFailures { return .rejected(ChallengeRejection.tooManyAttempts) }
            switch provider.verify(params.verificationCode, against: challenge, now: Date()) {
            case .accepted(let step):
                // Used up, and kept (marked with the enrollment and its step) until it expires, so
                // an exact retry of this enrollment is answered again; rows earlier versions marked
                // without a step stay refused above.
                try await connection.query(
                    cached: """
                        UPDATE \(sql: sessions)
                        SET consumed_at = now(), consumed_by = \(params.mfaEnrollmentId), consumed_step = \(step ?? 0)
                        WHERE session_id = \(key)
                        """,
                    logger: logger
                )
                let resealed = try sealer.seal(secret, keyID: params.mfaEnrollmentId)
                try await connection.query(
                    cached: """
                        INSERT INTO \(sql: factors) (enrollment_id, local_id, secret_sealed, last_step)
                        VALUES (\(params.mfaEnrollmentId), \(params.localId), \(ByteBuffer(bytes: resealed)), \(step ?? 0))
                        """,
                    logger: logger
                )
                return .accepted
            case .expired:
                return .rejected(ChallengeRejection.sessionExpired)
            case .wrongCode, .replayed:
                try await connection.query(
                    cached: "UPDATE \(sql: sessions) SET attempts = attempts + 1 WHERE session_id = \(key)", logger: logger
                )
                return .rejected(ChallengeRejection.invalidCode)
            }
        }
        if case .rejected(let error) = outcome { throw error }
    }

    /// Checks a sign-in code with one commit:
    /// 1. read the secret, the last accepted step, whether the factor is throttled and whether the
    ///    sign-in (`attempt`) was finished already (a read, so nothing to commit);
    /// 2. check the code here;
    /// 3. one UPDATE decides and records the outcome under the row's lock. It applies only while
    ///    the factor has fewer than `maximumFailures` failures in the window, and then either
    ///    accepts the step by compare-and-set (`last_step < step`, failures cleared, the sign-in
    ///    recorded as finished with that step) or counts a failure.
    /// The answer is what the UPDATE did, never what step 2 found: however many guesses arrive at
    /// once and get checked, at most `maximumFailures` outcomes per window reach anyone, and of
    /// two requests with the same code only one can move the step past it. A crash before the
    /// UPDATE answers nothing and records nothing.
    ///
    /// Decision 22: a finished sign-in passes again only as an exact retry (this factor, the code
    /// of the step it spent), writing nothing; anything else from its credential is refused
    /// (`INVALID_MFA_PENDING_CREDENTIAL`) before anything is written.
    func verify(_ params: VerifyTOTP.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let factors = schema.qualified("totp_factors")
        guard let provider else { throw Self.disabled }
        let window = Double(failureWindow.components.seconds)
        let maximumFailures = Int32(self.maximumFailures)
        let daily = budget.rule(acceptedCodes: 2 * max(0, params.adjacentIntervals) + 1)
        let (capacity, refill) = (daily.capacity, daily.refillPerSecond)
        // An attempt is never empty; '' finds no finished sign-in.
        let attempt = params.attempt ?? ""
        // `left` below: the budget as it stands now (what was left, refilled by the time since, capped).
        let read = try await client.query(
            cached: """
                SELECT secret_sealed, last_step,
                       (failure_window_start > now() - make_interval(secs => \(window)) AND failures >= \(maximumFailures))
                       OR least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) < 1,
                       (SELECT proof FROM \(sql: schema.qualified(FinishedSignIns.table))
                        WHERE attempt = \(attempt) AND expires_at > now())
                FROM \(sql: factors) WHERE enrollment_id = \(params.mfaEnrollmentId) AND local_id = \(params.localId)
                """,
            logger: logger
        )
        var found: (ByteBuffer, Int64, Bool?, String?)?
        for try await row in read.decode((ByteBuffer, Int64, Bool?, String?).self) { found = row }
        guard let (sealedBuffer, lastStep, throttled, finishedProof) = found else {
            // No such factor of this user; a finished sign-in is refused as such first.
            if !attempt.isEmpty, try await finished.proof(of: attempt, in: schema) != nil { throw FinishedSignIns.spent }
            throw ChallengeRejection.enrollmentNotFound
        }
        let secret = try sealer.open(Data(sealedBuffer.readableBytesView), keyID: params.mfaEnrollmentId)
        if let finishedProof {
            try retry(params, finishedWith: FinishedSignIns.Proof(text: finishedProof), secret: secret)
            return
        }
        if throttled == true {
            try await events.record(
                .rateLimitTripped, localId: params.localId,
                details: ["limit": "TOTP codes per factor", "enrollmentId": params.mfaEnrollmentId],
                in: schema
            )
            throw ChallengeRejection.tooManyAttempts
        }
        let challenge = TOTPChallenge(
            expiresAt: .distantFuture, secret: Array(secret), adjacentIntervals: params.adjacentIntervals, lastAcceptedStep: lastStep
        )
        // A good code records its step (the last one again if the provider names none, as long as
        // nobody moved it meanwhile); anything else only counts a failure.
        var good = false
        var step = lastStep
        var bound = lastStep
        if case .accepted(let matched) = provider.verify(params.verificationCode, against: challenge, now: Date()) {
            (good, step, bound) = (true, matched ?? lastStep, matched ?? lastStep + 1)
        }
        let proof = FinishedSignIns.Proof.totp(enrollmentId: params.mfaEnrollmentId, step: step).text
        let kept = Double(FinishedSignIns.kept.components.seconds)
        // The outcome, its audit record and the finished sign-in in one statement: the same commit,
        // no extra round trip. The row is left alone (no outcome) when a parallel exact retry
        // recorded this very step for this attempt first; the finished sign-in's primary key fails
        // the statement when another success of the same attempt committed first.
        let (actor, address, agent) = (SecurityEventLog.actor, SecurityEventLog.clientAddress, SecurityEventLog.userAgent)
        var accepted: Bool?
        do {
            let outcome = try await client.query(
                cached: """
                    WITH updated AS (
                    UPDATE \(sql: factors) SET
                        last_step = CASE WHEN \(good) AND last_step < \(bound) THEN \(step) ELSE last_step END,
                        failures = CASE WHEN \(good) AND last_step < \(bound) THEN 0
                                        WHEN failure_window_start > now() - make_interval(secs => \(window)) THEN failures + 1
                                        ELSE 1 END,
                        failure_window_start = CASE WHEN \(good) AND last_step < \(bound) THEN NULL
                                                    WHEN failure_window_start > now() - make_interval(secs => \(window))
                                                    THEN failure_window_start
                                                    ELSE now() END,
                        budget = CASE WHEN \(good) AND last_step < \(bound) THEN budget ELSE least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) - 1 END,
                        budget_updated_at = CASE WHEN \(good) AND last_step < \(bound) THEN budget_updated_at ELSE now() END,
                        last_step_attempt = CASE WHEN \(good) AND last_step < \(bound) THEN \(params.attempt) ELSE last_step_attempt END
                    WHERE enrollment_id = \(params.mfaEnrollmentId) AND local_id = \(params.localId)
                      AND (failure_window_start IS NULL OR failure_window_start <= now() - make_interval(secs => \(window))
                           OR failures < \(maximumFailures))
                      AND ((\(good) AND last_step < \(bound)) OR least(\(capacity), coalesce(budget, \(capacity)) + coalesce(extract(epoch FROM now() - budget_updated_at), 0) * \(refill)) >= 1)
                      AND NOT (\(good) AND \(attempt) <> '' AND last_step = \(step) AND last_step_attempt = \(attempt))
                    RETURNING failure_window_start IS NULL AS ok
                    ), recorded AS (
                        INSERT INTO \(sql: schema.qualified("security_events")) (type, local_id, actor, client_address, user_agent, details)
                        SELECT CASE WHEN ok THEN 'secondFactor.succeeded' ELSE 'secondFactor.failed' END, \(params.localId), \(actor),
                               \(address), \(agent), jsonb_build_object('kind', \(FactorKind.totp.rawValue)::text, 'enrollmentId', \(params.mfaEnrollmentId)::text)
                        FROM updated
                    ), finished AS (
                        INSERT INTO \(sql: schema.qualified(FinishedSignIns.table)) (attempt, proof, expires_at)
                        SELECT \(attempt), \(proof), now() + make_interval(secs => \(kept)) FROM updated WHERE ok AND \(attempt) <> ''
                    )
                    SELECT ok FROM updated
                    """,
                logger: logger
            )
            for try await row in outcome.decode(Bool.self) { accepted = row }
        } catch  where UniqueViolation.matches(error) {
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
            throw try await exists(params, in: factors) ? ChallengeRejection.tooManyAttempts : ChallengeRejection.enrollmentNotFound
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

    private func exists(_ params: VerifyTOTP.Params, in factors: SQLText) async throws -> Bool {
        let rows = try await client.query(
            cached: "SELECT 1 FROM \(sql: factors) WHERE enrollment_id = \(params.mfaEnrollmentId) AND local_id = \(params.localId)",
            logger: logger
        )
        for try await _ in rows.decode(Int32.self) { return true }
        return false
    }

    func delete(_ params: DeleteTOTPFactor.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        try await client.query(
            """
            DELETE FROM \(sql: schema.qualified("totp_factors"))
            WHERE enrollment_id = \(params.mfaEnrollmentId) AND local_id = \(params.localId)
            """,
            logger: logger
        )
    }

    /// A page of factors whose secret is at least `olderThanSeconds` old, for factor-registry's
    /// orphan sweep. A schema not (or no longer) there has none.
    func listStored(_ params: ListStoredTOTPFactors.Params) async throws -> ListStoredTOTPFactors.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard (1...ListStoredTOTPFactors.maximumLimit).contains(params.limit), params.olderThanSeconds >= 0 else {
            throw RPCError.invalidParams("limit must be 1-\(ListStoredTOTPFactors.maximumLimit), olderThanSeconds not negative")
        }
        let (age, after, limit) = (Double(params.olderThanSeconds), params.after ?? "", params.limit)
        var factors: [StoredTOTPFactor] = []
        do {
            let rows = try await client.query(
                """
                SELECT local_id, enrollment_id FROM \(sql: schema.qualified("totp_factors"))
                WHERE created_at < now() - make_interval(secs => \(age)) AND enrollment_id > \(after)
                ORDER BY enrollment_id LIMIT \(limit)
                """,
                logger: logger
            )
            for try await (localId, enrollmentId) in rows.decode((String, String).self) {
                factors.append(.init(localId: localId, mfaEnrollmentId: enrollmentId))
            }
        } catch  where TenantSchema.isMissing(error) {
            return .init(factors: [])
        }
        return .init(factors: factors)
    }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
