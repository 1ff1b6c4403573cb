import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:verifyIosClient` (contract §2.13, decision 10): challenge-issuer sends a silent push
/// with a secret to the device token; the app then proves itself with `iosReceipt` + `iosSecret`.
struct VerifyIosClientOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let challenges: PeerClient<ChallengeIssuerAPI>

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(VerifyIosClientRequest.self)
        let projectId = request.callerProjectId
        // The request names no tenant: an iOS app, and its receipts, belong to the project.
        let tenantId: String? = nil
        _ = try await scopeSettings.enabled(projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        guard let appToken = body.appToken.nonEmpty else {
            throw IdentityToolkitError(.missingAppToken)
        }
        do {
            let receipt = try await PeerCall.call(
                challenges, IssueIosReceipt.self,
                .init(
                    projectId: projectId, tenantId: tenantId, appToken: appToken,
                    isSandbox: body.isSandbox ?? false,
                    clientAddress: request.clientAddress
                ),
                requestID: request.requestID
            )
            return try request.answer(
                VerifyIosClientResponse(receipt: receipt.receipt, suggestedTimeout: String(receipt.suggestedTimeout))
            )
        } catch let error as RPCError where error.code == .deliveryFailed {
            throw IdentityToolkitError.unavailable
        }
    }
}
