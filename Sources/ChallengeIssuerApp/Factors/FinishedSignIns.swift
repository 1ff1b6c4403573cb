import Foundation
import Logging
import PostgresNIO
import TenantStore

/// Decision 22, single use: the second-factor sign-ins each pending credential finished. The
/// gateway names a sign-in by its `attempt` (a digest of the pending credential); the statement or
/// transaction that accepts the code also writes the attempt's row with what passed it (a TOTP
/// factor's time step, an SMS session), and the row's primary key lets only one success of a
/// credential be written, however many race. Afterwards the same credential passes only with the
/// same proof (an exact retry, whose answer was lost) and writes nothing; anything else (another
/// code, another factor, another session) is refused as a spent credential before it changes
/// anything.
struct FinishedSignIns: Sendable {
    let client: Database
    let logger: Logger

    static let table: SQLText = "finished_sign_ins"

    /// How long a finished sign-in is remembered: longer than a pending credential lives
    /// (`mfa.pendingCredentialLifetimeSeconds`, 10 minutes by default; session-token refuses more
    /// than this), after which the credential itself is refused.
    static let kept: Duration = .seconds(3600)

    static let retention = RetentionRule(
        "finished sign-ins", table: table, key: "attempt", column: "expires_at", retention: .zero, indexed: true
    )

    /// What passed a finished sign-in.
    enum Proof: Equatable, Sendable {
        case totp(enrollmentId: String, step: Int64)
        case phone(sessionKey: String)
        /// A recovery code: its set and its keyed hash (base64).
        case recoveryCode(enrollmentId: String, codeHash: String)

        var text: String {
            switch self {
            case .recoveryCode(let enrollmentId, let codeHash): "recovery:\(enrollmentId):\(codeHash)"
            case .totp(let enrollmentId, let step): "totp:\(enrollmentId):\(step)"
            case .phone(let sessionKey): "phone:\(sessionKey)"
            }
        }

        init?(text: String) {
            let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            switch parts.first {
            case "totp" where parts.count == 3:
                guard let step = Int64(parts[2]) else { return nil }
                self = .totp(enrollmentId: parts[1], step: step)
            case "recovery" where parts.count == 3:
                self = .recoveryCode(enrollmentId: parts[1], codeHash: parts[2])
            case "phone" where parts.count == 2:
                self = .phone(sessionKey: parts[1])
            default:
                return nil
            }
        }
    }

    /// The answer to everything but an exact retry of a finished sign-in.
    static let spent = ChallengeRejection.error(.invalidMFAPendingCredential)

    /// What passed `attempt`, while it is remembered; `nil` for a sign-in not finished yet. (The
    /// checks read it in their own first statement; this reads it again after a race.)
    func proof(of attempt: String, in schema: TenantSchema) async throws -> Proof? {
        try await client.first(ReadProof(attempt: attempt), in: schema, logger: logger).flatMap { Proof(text: $0.value) }
    }

    /// Records that `attempt` finished with `proof`, on the transaction that accepted it. A unique
    /// violation (another success of the same credential committed first) fails that transaction.
    func record(_ attempt: String, proof: Proof, in schema: TenantSchema, on connection: PostgresConnection) async throws {
        try await connection.run(
            RecordProof(attempt: attempt, proof: proof.text, seconds: Double(Self.kept.components.seconds)), in: schema, logger: logger)
    }
}
