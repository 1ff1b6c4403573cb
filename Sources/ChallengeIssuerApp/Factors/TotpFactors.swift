import Contracts
import Foundation
import JSONRPC
import Logging
import PluginKit
import PostgresNIO
import ServiceKit
import TenantStore

/// TOTP enrollment sessions and enrolled TOTP factors. Secrets are sealed at rest (AES-GCM with the
/// service's master key) and opened only to check a code; they never leave this service after the
/// enrollment answer.
struct TotpFactors: Sendable {
    /// `nil` when `factors.enabled` leaves TOTP out: every TOTP call is then refused.
    let provider: (any FactorProvider)?
    let client: PostgresClient
    let sealer: SecretSealer
    let logger: Logger
    /// How long an enrollment session lasts (`finalizeEnrollmentTime`).
    let enrollmentLifetime: Duration
    /// Wrong codes tolerated per factor (and per enrollment session) within `failureWindow`.
    let maximumFailures: Int
    let failureWindow: Duration

    static let disabled = ChallengeRejection.error("OPERATION_NOT_ALLOWED : TOTP based MFA not enabled.")

    func startEnrollment(_ params: StartTotpEnrollment.Params) async throws -> StartTotpEnrollment.Result {
        guard let provider else { throw Self.disabled }
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let now = Date()
        let issued = provider.newChallenge(now: now, lifetime: enrollmentLifetime)
        let sessionInfo = SessionInfo.make()
        guard let key = SessionInfo.key(sessionInfo), let secret = issued.challenge.secret else {
            throw RPCError.internalError()
        }
        let sealed = try sealer.seal(Data(secret), keyID: key)
        try await client.query(
            """
            INSERT INTO \(unescaped: schema.qualified("verification_sessions"))
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

    enum Outcome: Sendable {
        case accepted
        case rejected(RPCError)
    }

    func finalizeEnrollment(_ params: FinalizeTotpEnrollment.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard let key = SessionInfo.key(params.sessionInfo) else { throw ChallengeRejection.invalidSession }
        let sessions = schema.qualified("verification_sessions")
        let factors = schema.qualified("totp_factors")
        guard let provider else { throw Self.disabled }
        let (sealer, logger, maximumFailures) = (self.sealer, self.logger, self.maximumFailures)
        let outcome: Outcome = try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                SELECT local_id, secret_sealed, expires_at, consumed_at IS NOT NULL, attempts
                FROM \(unescaped: sessions) WHERE session_id = \(key) AND kind = 'totp' FOR UPDATE
                """,
                logger: logger
            )
            var found: (String?, ByteBuffer?, Date, Bool, Int32)?
            for try await row in rows.decode((String?, ByteBuffer?, Date, Bool, Int32).self) { found = row }
            guard let (owner, sealedBuffer, expiresAt, consumed, attempts) = found, owner == params.localId, !consumed,
                let sealedBuffer
            else { return .rejected(ChallengeRejection.invalidSession) }
            if Int(attempts) >= maximumFailures { return .rejected(ChallengeRejection.tooManyAttempts) }
            let secret = try sealer.open(Data(sealedBuffer.readableBytesView), keyID: key)
            let challenge = Challenge(expiresAt: expiresAt, secret: Array(secret), adjacentIntervals: params.adjacentIntervals)
            switch provider.verify(params.verificationCode, against: challenge, now: Date()) {
            case .accepted(let step):
                try await connection.query(
                    "UPDATE \(unescaped: sessions) SET consumed_at = now() WHERE session_id = \(key)", logger: logger
                )
                let resealed = try sealer.seal(secret, keyID: params.mfaEnrollmentId)
                try await connection.query(
                    """
                    INSERT INTO \(unescaped: factors) (enrollment_id, local_id, secret_sealed, last_step)
                    VALUES (\(params.mfaEnrollmentId), \(params.localId), \(ByteBuffer(bytes: resealed)), \(step ?? 0))
                    """,
                    logger: logger
                )
                return .accepted
            case .expired:
                return .rejected(ChallengeRejection.sessionExpired)
            case .wrongCode, .replayed:
                try await connection.query(
                    "UPDATE \(unescaped: sessions) SET attempts = attempts + 1 WHERE session_id = \(key)", logger: logger
                )
                return .rejected(ChallengeRejection.invalidCode)
            }
        }
        if case .rejected(let error) = outcome { throw error }
    }

    func verify(_ params: VerifyTotp.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let factors = schema.qualified("totp_factors")
        guard let provider else { throw Self.disabled }
        let (sealer, logger, maximumFailures) = (self.sealer, self.logger, self.maximumFailures)
        let window = Double(failureWindow.components.seconds)
        let outcome: Outcome = try await client.withTransaction(logger: logger) { connection in
            // The row lock serialises every attempt on this factor: of two requests with the same
            // code, the second sees the step the first recorded.
            let rows = try await connection.query(
                """
                SELECT secret_sealed, last_step,
                       CASE WHEN failure_window_start > now() - make_interval(secs => \(window)) THEN failures ELSE 0 END
                FROM \(unescaped: factors)
                WHERE enrollment_id = \(params.mfaEnrollmentId) AND local_id = \(params.localId) FOR UPDATE
                """,
                logger: logger
            )
            var found: (ByteBuffer, Int64, Int32)?
            for try await row in rows.decode((ByteBuffer, Int64, Int32).self) { found = row }
            guard let (sealedBuffer, lastStep, failures) = found else { return .rejected(ChallengeRejection.enrollmentNotFound) }
            if Int(failures) >= maximumFailures { return .rejected(ChallengeRejection.tooManyAttempts) }
            let secret = try sealer.open(Data(sealedBuffer.readableBytesView), keyID: params.mfaEnrollmentId)
            let challenge = Challenge(
                expiresAt: .distantFuture, secret: Array(secret), adjacentIntervals: params.adjacentIntervals,
                lastAcceptedStep: lastStep
            )
            switch provider.verify(params.verificationCode, against: challenge, now: Date()) {
            case .accepted(let step):
                try await connection.query(
                    """
                    UPDATE \(unescaped: factors) SET last_step = \(step ?? lastStep), failures = 0, failure_window_start = NULL
                    WHERE enrollment_id = \(params.mfaEnrollmentId)
                    """,
                    logger: logger
                )
                return .accepted
            case .wrongCode, .replayed, .expired:
                try await connection.query(
                    """
                    UPDATE \(unescaped: factors) SET
                        failures = CASE WHEN failure_window_start > now() - make_interval(secs => \(window)) THEN failures + 1 ELSE 1 END,
                        failure_window_start = CASE WHEN failure_window_start > now() - make_interval(secs => \(window))
                                                    THEN failure_window_start ELSE now() END
                    WHERE enrollment_id = \(params.mfaEnrollmentId)
                    """,
                    logger: logger
                )
                return .rejected(ChallengeRejection.invalidCode)
            }
        }
        if case .rejected(let error) = outcome { throw error }
    }

    func delete(_ params: DeleteTotpFactor.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        try await client.query(
            """
            DELETE FROM \(unescaped: schema.qualified("totp_factors"))
            WHERE enrollment_id = \(params.mfaEnrollmentId) AND local_id = \(params.localId)
            """,
            logger: logger
        )
    }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
