import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `POST /v2/projects/{p}[/tenants/{t}]/accounts:withdrawMfaEnrollment` (this server's admin
/// operation, `identitytoolkit/extensions.json`): an operator removes one second factor of a user,
/// say for a user who lost the phone. The Admin SDKs' `updateUser({multiFactor})` can only replace
/// the list with phone factors, which would drop every TOTP factor with it; this removes exactly the
/// one named, of any kind, and ends the sessions established with it, as the user's own withdrawal
/// does. Admin credential only; the factor-registry records it in the audit trail with the admin as
/// actor. Answers the factors left.
struct AdminFactorWithdrawal: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let erasure: AccountErasure
    let settings: CachedSettings

    func withdraw(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(MFAWithdrawEnrollmentRequest.self)
        let scope = try await AdminScope.existing(request, in: settings)
        guard let localId = body.localId.nonEmpty else { throw IdentityToolkitError(.missingLocalID) }
        let account = try await PeerCall.call(
            registry, GetAccount.self, .init(projectId: scope.projectId, tenantId: scope.tenantId, localId: localId),
            requestID: request.requestID
        )
        guard let enrollmentId = body.mfaEnrollmentId.nonEmpty,
            let withdrawn = account.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentId })
        else { throw IdentityToolkitError(.mfaEnrollmentNotFound) }
        let remaining = try await PeerCall.call(
            registry, RemoveEnrollment.self,
            .init(projectId: scope.projectId, tenantId: scope.tenantId, localId: localId, mfaEnrollmentId: enrollmentId),
            requestID: request.requestID
        )
        let removed = (account.mfaInfo ?? []).filter { !remaining.lists(factor: $0.mfaEnrollmentId) }
        try await erasure.forgetFactors(
            removed.isEmpty ? [withdrawn] : removed, projectId: scope.projectId, tenantId: scope.tenantId, localId: localId,
            requestID: request.requestID
        )
        return [
            "localId": .string(localId),
            "mfaInfo": try JSONCoding.value(of: MFAInfo.entries(remaining.mfaInfo ?? [], masked: false)),
        ]
    }
}
