import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// `temporaryProof`s of a verified phone number, kept as verification sessions of kind `proof`
/// (found by SHA-256, like a `sessionInfo`): single use, five minutes.
struct PhoneProofs: Sendable {
    let client: Database
    let logger: Logger
    let lifetime: Duration = .seconds(300)

    static let invalid = ChallengeRejection.error(.invalidTemporaryProof)

    func issue(_ params: IssuePhoneProof.Params) async throws -> IssuePhoneProof.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard PhoneNumber.isValid(params.phoneNumber) else { throw ChallengeRejection.error(.invalidPhoneNumberFormat) }
        let proof = SessionInfo.make()
        guard let key = SessionInfo.key(proof) else { throw RPCError.internalError() }
        let seconds = Double(lifetime.components.seconds)
        try await client.query(
            """
            INSERT INTO \(sql: schema.qualified("verification_sessions")) (session_id, kind, phone_number, expires_at)
            VALUES (\(key), 'proof', \(params.phoneNumber), now() + make_interval(secs => \(seconds)))
            """,
            logger: logger
        )
        return .init(temporaryProof: proof)
    }

    func redeem(_ params: RedeemPhoneProof.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard let key = SessionInfo.key(params.temporaryProof) else { throw Self.invalid }
        let rows = try await client.query(
            """
            DELETE FROM \(sql: schema.qualified("verification_sessions"))
            WHERE session_id = \(key) AND kind = 'proof' AND phone_number = \(params.phoneNumber) AND expires_at > now()
            RETURNING session_id
            """,
            logger: logger
        )
        for try await _ in rows.decode(String.self) { return }
        throw Self.invalid
    }
}
