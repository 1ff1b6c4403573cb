import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `GET /v2/projects/{p}[/tenants/{t}]/smsDefense` and `POST …/smsDefense:resume` (this server's
/// admin operations, `identitytoolkit/extensions.json`): a scope's SMS sends, spend and paused
/// destinations, and an operator's resume of one. Admin credential only; an unknown tenant is
/// `TENANT_NOT_FOUND`.
struct SMSDefenseOperations: Sendable {
    let challenges: PeerClient<ChallengeIssuerAPI>
    let settings: CachedSettings

    func get(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try await AdminScope.existing(request, in: settings)
        let status = try await PeerCall.call(
            challenges, GetSMSDefenseStatus.self, TenantScope(projectId: scope.projectId, tenantId: scope.tenantId),
            requestID: request.requestID
        )
        return try JSONCoding.value(of: status)
    }

    func resume(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(ResumeSMSRegionRequest.self)
        let scope = try await AdminScope.existing(request, in: settings)
        guard let region = body.region, region.count == 2, region.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw IdentityToolkitError.invalidPayload("region must be an ISO 3166 alpha-2 code")
        }
        let resumed = try await PeerCall.call(
            challenges, ResumeSMSRegion.self, .init(projectId: scope.projectId, tenantId: scope.tenantId, region: region),
            requestID: request.requestID
        )
        return try JSONCoding.value(of: resumed)
    }
}
