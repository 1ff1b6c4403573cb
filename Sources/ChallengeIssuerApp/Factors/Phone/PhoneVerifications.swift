import AuthVocabulary
import Contracts
import FactorSMS
import Foundation
import IdentityToolkit
import JSONRPC
import LocalizedMessages
import Logging
import PluginKit
import PostgresNIO
import ServiceKit
import TenantStore

/// SMS verification sessions for enrollment and second-factor sign-in (contract §2.8-§2.12,
/// decisions 8 and 10): app proof, rate limits, a hashed code, delivery; then code checks with an
/// attempt limit, each session used at most once. The sessions' statements are
/// ``VerificationSessionRepository``'s.
struct PhoneVerifications: Sendable {
    /// `nil` when `factors.enabled` leaves phone out: every SMS call is then refused.
    let provider: SMSFactorProvider?
    let sessions: VerificationSessionRepository
    /// The default sender and the operator's named routes.
    let routes: SMSRoutes
    /// Seals a held message (`holdDelivery`) for its `sms.deliver`.
    let sealer: SecretSealer
    /// Whether the app asking for an SMS is ours (reCAPTCHA, Play Integrity, an iOS receipt).
    let appProof: AppProofCheck
    let limiter: RateLimiter
    let perNumber: RateLimiter.Rule
    let perAddress: RateLimiter.Rule
    /// Code checks per phone number and per account per day, across sessions (docs/security.md, guessing budgets).
    let budget: GuessingBudget
    /// Admits every send to a real number: velocity, spend caps, the anomaly brake.
    let defense: SMSDefense
    /// The audit trail: a sign-in code's outcome is recorded with its session's change.
    let events: SecurityEventLog
    /// Decision 22: what each pending credential's sign-in was finished with.
    let finished: FinishedSignIns
    /// Present in development mode only.
    let outbox: DevelopmentOutbox?
    let lifetime: Duration
    let maximumAttempts: Int
    /// The configured name; the project's id when none (``AppName``).
    let appName: String?
    let logger: Logger

    /// `enroll` and `signIn` are a second factor's, for the session's user; `phoneSignIn` is the
    /// phone as a first factor (`sendVerificationCode`), for nobody yet (`localId` empty).

    static let disabled = ChallengeRejection.error(.smsMFADisabled)

    func start(_ params: StartPhoneVerification.Params) async throws -> StartPhoneVerification.Result {
        guard let provider else { throw Self.disabled }
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard PhoneNumber.isValid(params.phoneNumber) else {
            throw ChallengeRejection.error(.invalidPhoneNumberFormat)
        }
        let now = Date()
        let issued: IssuedChallenge<SMSChallenge>
        if let testCode = params.testCode {
            issued = provider.issue(code: testCode, now: now, lifetime: lifetime)
        } else {
            try await appProof.check(
                params.proof.map(AppProof.init) ?? AppProof(),
                context: AppVerificationContext(
                    projectId: params.projectId, tenantId: params.tenantId, authorizedDomains: params.authorizedDomains ?? [],
                    phoneNumber: params.phoneNumber
                )
            )
            // A second-factor sign-in's code goes to the number the account enrolled: its budget is
            // the account's, so strangers sending codes to that number (a phone sign-in, an
            // enrollment) cannot use it up (issue 39, M-2).
            let sends = params.purpose == .signIn ? "phone:signIn:account:\(schema.name):\(params.localId)" : "phone:\(params.phoneNumber)"
            guard try await limiter.take(sends, rule: perNumber) else {
                try await tripped("SMS sends per number", localId: params.localId, in: schema)
            }
            if let address = params.clientAddress, !(try await limiter.take("address:\(address)", rule: perAddress)) {
                try await tripped("SMS sends per client address", localId: params.localId, in: schema)
            }
            issued = provider.newChallenge(now: now, lifetime: lifetime)
        }
        let sessionInfo = SessionInfo.make()
        guard let key = SessionInfo.key(sessionInfo) else {
            throw RPCError.internalError()
        }
        // A test number's fixed code is sent nowhere: no text, no cost, nothing counted.
        let message =
            params.testCode == nil
            ? MessageCatalog(params.notification).sms(
                locale: params.locale, code: issued.deliverable,
                appName: AppName.shown(configured: appName, projectId: params.projectId), lifetime: lifetime)
            : nil
        if let message {
            try await defense.admit(
                .init(
                    scope: schema, projectId: params.projectId, tenantId: params.tenantId, number: params.phoneNumber,
                    localId: params.localId, segments: message.length.segments, sessionKey: key, config: params.smsDefense,
                    enrolledFactor: params.purpose == .signIn && !params.localId.isEmpty
                )
            )
        }
        try await sessions.insert(
            key: key, codeHash: issued.challenge.codeHash, salt: issued.challenge.salt, phoneNumber: params.phoneNumber,
            localId: params.localId, purpose: params.purpose, expiresAt: issued.challenge.expiresAt, in: schema
        )
        guard let message else { return .init(sessionInfo: sessionInfo) }
        let held = HeldSMS(
            projectId: params.projectId, tenantId: params.tenantId, to: params.phoneNumber, text: message.text,
            locale: message.locale, gsm7: message.length.encoding == .gsm7, segments: message.length.segments, code: issued.deliverable,
            sessionInfo: sessionInfo, heldAt: EpochSeconds(now)
        )
        if params.holdDelivery == true {
            return .init(sessionInfo: sessionInfo, heldMessage: try held.sealed(with: sealer))
        }
        try await send(held, by: routes.standard, in: schema)
        return .init(sessionInfo: sessionInfo)
    }

    /// `sms.deliver`: a held message, by the route a `beforeSendSms` function chose.
    func deliver(_ params: DeliverPhoneVerification.Params, now: Date = Date()) async throws -> RPCEmpty {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard let held = HeldSMS.opened(params.heldMessage, with: sealer), held.projectId == params.projectId,
            held.tenantId == params.tenantId, EpochSeconds(now) - held.heldAt <= HeldSMS.lifetimeSeconds
        else { throw ChallengeRejection.error(.invalidArgument, detail: "the held message is not valid") }
        guard let sender = routes.sender(params.route) else {
            throw ChallengeRejection.error(.invalidArgument, detail: "this deployment has no SMS route \(params.route ?? "")")
        }
        try await send(held, by: sender, in: schema)
        return RPCEmpty()
    }

    private func send(_ held: HeldSMS, by sender: any SMSSender, in schema: TenantSchema) async throws {
        try await outbox?.recordSMS(
            in: schema, number: held.to, code: held.code, sessionInfo: held.sessionInfo, text: held.text, locale: held.locale)
        do {
            try await sender.send(SMSMessage(to: held.to, text: held.text, encoding: held.gsm7 ? .gsm7 : .ucs2, segments: held.segments))
        } catch let failure as DeliveryFailed {
            logger.error(
                "SMS not delivered",
                metadata: ["sender": "\(sender.name)", "to": "\(PhoneNumber.masked(held.to))", "reason": "\(failure.reason)"]
            )
            throw RPCError(code: .deliveryFailed, message: "The \(sender.name) sender could not deliver the message")
        }
    }

    enum Outcome: Sendable {
        case verified(String)
        case rejected(RPCError)
    }

    /// Checks a code in one transaction under the session's row lock. Decision 22: a session used
    /// by a flow that can be retried (`attempt`) passes again only for an exact retry (the same
    /// attempt, this session, its code) and writes nothing; a second-factor sign-in's attempt
    /// (its pending credential) that finished with another session is refused as spent. Anything
    /// else after success changes nothing.
    func verify(_ params: VerifyPhoneCode.Params) async throws -> VerifyPhoneCode.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard let key = SessionInfo.key(params.sessionInfo) else { throw ChallengeRejection.invalidSession }
        guard let provider else { throw Self.disabled }
        let (sessions, maximumAttempts, finished) = (self.sessions, self.maximumAttempts, self.finished)
        // Only a second-factor sign-in finishes a pending credential; '' finds nothing.
        let signInAttempt = params.purpose == .signIn ? (params.attempt ?? "") : ""
        let outcome: Outcome
        do {
            outcome = try await sessions.transaction { connection in
                let found = try await sessions.lock(key: key, signInAttempt: signInAttempt, in: schema, on: connection)
                guard let found, let hash = found.codeHash, let salt = found.salt, let number = found.phoneNumber,
                    found.localId == params.localId, found.purpose == params.purpose
                else { return .rejected(ChallengeRejection.invalidSession) }
                let (purpose, expiresAt, consumed, attempts, consumedBy, finishedProof) = (
                    found.purpose, found.expiresAt, found.consumed, found.attempts, found.consumedBy, found.finishedProof
                )
                let challenge = SMSChallenge(
                    expiresAt: expiresAt, codeHash: Array(hash.readableBytesView), salt: Array(salt.readableBytesView)
                )
                // The exact retry of a finished flow passes again and writes nothing; anything
                // else from it is refused, also without writing.
                if let finishedProof {
                    guard FinishedSignIns.Proof(text: finishedProof) == .phone(sessionKey: key),
                        case .accepted = provider.verify(params.code, against: challenge, now: Date())
                    else { return .rejected(FinishedSignIns.spent) }
                    return .verified(number)
                }
                if consumed {
                    guard consumedBy != nil, consumedBy == params.attempt,
                        case .accepted = provider.verify(params.code, against: challenge, now: Date())
                    else { return .rejected(ChallengeRejection.invalidSession) }
                    return .verified(number)
                }
                if Int(attempts) >= maximumAttempts { return .rejected(ChallengeRejection.tooManyAttempts) }
                // Every check spends a token of the number's and the account's daily budget for its
                // purpose, in this transaction: guesses spread over many sessions stay below the
                // odds too. A first-factor phone sign-in has no account yet, so only its number's
                // budget counts (a shared empty account would let strangers lock everyone out).
                let daily = budget.rule(acceptedCodes: 1)
                let checks = "sms-checks:\(params.purpose.rawValue)"
                guard try await limiter.take("\(checks):number:\(number)", rule: daily, on: connection) else {
                    return .rejected(ChallengeRejection.tooManyAttempts)
                }
                if !params.localId.isEmpty,
                    !(try await limiter.take("\(checks):account:\(schema.name):\(params.localId)", rule: daily, on: connection))
                {
                    return .rejected(ChallengeRejection.tooManyAttempts)
                }
                switch provider.verify(params.code, against: challenge, now: Date()) {
                case .accepted:
                    try await defense.verified(sessionKey: key, scope: schema, on: connection)
                    try await record(passed: true, purpose: purpose, localId: params.localId, in: schema, on: connection)
                    if !signInAttempt.isEmpty {
                        try await finished.record(signInAttempt, proof: .phone(sessionKey: key), in: schema, on: connection)
                    }
                    // Used up. A flow that names its attempt may be retried, so its session stays,
                    // marked, until it expires; otherwise nothing of it is kept.
                    if let attempt = params.attempt {
                        try await sessions.markUsed(key: key, by: attempt, in: schema, on: connection)
                    } else {
                        try await sessions.delete(key: key, in: schema, on: connection)
                    }
                    return .verified(number)
                case .expired:
                    return .rejected(ChallengeRejection.sessionExpired)
                case .wrongCode, .replayed:
                    try await sessions.countAttempt(key: key, in: schema, on: connection)
                    try await record(passed: false, purpose: purpose, localId: params.localId, in: schema, on: connection)
                    return .rejected(ChallengeRejection.invalidCode)
                }
            }
        } catch  where UniqueViolation.matches(error) && !signInAttempt.isEmpty {
            // The same pending credential finished with another session meanwhile.
            throw FinishedSignIns.spent
        }
        switch outcome {
        case .verified(let number):
            // A used code leaves the development list, as in the emulator.
            try? await outbox?.forgetSMS(in: schema, sessionInfo: params.sessionInfo)
            return .init(phoneNumber: number)
        case .rejected(let error):
            throw error
        }
    }

    /// A send limit refused the request: recorded, and answered `TOO_MANY_ATTEMPTS_TRY_LATER`.
    private func tripped(_ limit: String, localId: String, in schema: TenantSchema) async throws -> Never {
        try await events.record(.rateLimitTripped, localId: localId.isEmpty ? nil : localId, details: ["limit": limit], in: schema)
        throw ChallengeRejection.tooManyAttempts
    }

    /// A sign-in's code (second factor, or the phone as the first) in the audit trail; an
    /// enrollment's code is not a sign-in (factor-registry records the factor it adds).
    private func record(
        passed: Bool, purpose: VerificationPurpose?, localId: String, in schema: TenantSchema, on connection: PostgresConnection
    ) async throws {
        switch purpose {
        case .signIn:
            try await events.record(
                passed ? .secondFactorSucceeded : .secondFactorFailed, localId: localId, details: ["kind": FactorKind.phone.rawValue],
                in: schema,
                on: connection
            )
            events.countSecondFactorCheck(kind: .phone, outcome: passed ? .accepted : .rejected)
        case .phoneSignIn:
            try await events.record(
                passed ? .signInSucceeded : .signInFailed, localId: localId.isEmpty ? nil : localId,
                details: passed ? ["factor": FactorKind.phone.rawValue] : ["factor": FactorKind.phone.rawValue, "reason": "INVALID_CODE"],
                in: schema, on: connection
            )
        default:
            break
        }
    }

    func verificationCodes(_ scope: TenantScope) async throws -> ListOutboxVerificationCodes.Result {
        guard let outbox else { throw RPCError.methodNotFound(ListOutboxVerificationCodes.name) }
        return .init(verificationCodes: try await outbox.verificationCodes(in: try ScopeSchema.of(scope.projectId, scope.tenantId)))
    }
}

extension AppProof {
    /// The proof `sms.start` carried, as the app verifier plugins read it.
    init(_ wire: AppVerificationProof) {
        self.init(
            recaptchaToken: wire.recaptchaToken, iosReceipt: wire.iosReceipt, iosSecret: wire.iosSecret,
            safetyNetToken: wire.safetyNetToken, playIntegrityToken: wire.playIntegrityToken
        )
    }
}
