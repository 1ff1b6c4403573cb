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
    let sessions: VerificationSessionRepository
    let lifetime: Duration = .seconds(300)

    static let invalid = ChallengeRejection.error(.invalidTemporaryProof)

    func issue(_ params: IssuePhoneProof.Params) async throws -> IssuePhoneProof.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard PhoneNumber.isValid(params.phoneNumber) else { throw ChallengeRejection.error(.invalidPhoneNumberFormat) }
        let proof = SessionInfo.make()
        guard let key = SessionInfo.key(proof) else { throw RPCError.internalError() }
        try await sessions.insertProof(key: key, phoneNumber: params.phoneNumber, lifetime: lifetime, in: schema)
        return .init(temporaryProof: proof)
    }

    func redeem(_ params: RedeemPhoneProof.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard let key = SessionInfo.key(params.temporaryProof) else { throw Self.invalid }
        guard try await sessions.redeemProof(key: key, phoneNumber: params.phoneNumber, in: schema) else { throw Self.invalid }
    }
}
