import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:resetPassword`. With `{oobCode}` alone it says what any out-of-band code
/// is for without using it (the SDKs' `checkActionCode` / `verifyPasswordResetCode`); with
/// `{oobCode, newPassword}` it uses a `PASSWORD_RESET` code: the new password, the email verified,
/// every earlier session ended. It never signs anyone in: a user with second factors still passes
/// one at the next sign-in.
struct ResetPasswordOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let codes: OOBCodeApplication

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(ResetPasswordRequest.self)
        let projectId = request.callerProjectId
        let tenantId = body.tenantId
        let settings = try await scopeSettings.enabled(projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        guard let oobCode = body.oobCode.nonEmpty else {
            throw IdentityToolkitError(.missingOOBCode)
        }
        guard let newPassword = body.newPassword else {
            let info = try await PeerCall.call(
                registry, InspectOOBCode.self, .init(projectId: projectId, tenantId: tenantId, oobCode: oobCode),
                requestID: request.requestID
            )
            let answer = ResetPasswordResponse(
                requestType: info.requestType.rawValue, email: info.email, newEmail: info.newEmail,
                mfaInfo: info.enrollment.map { MFAInfo.entry($0, masked: true) }
            )
            return try request.answer(answer)
        }
        try settings.requirePasswordPolicy(newPassword)
        let applied = try await codes.apply(
            oobCode, requestTypes: [.passwordReset], newPassword: newPassword, projectId: projectId, tenantId: tenantId,
            apiKey: request.apiKey, locale: request.locale, requestID: request.requestID
        )
        return try request.answer(
            ResetPasswordResponse(
                requestType: OOBRequestType.passwordReset.rawValue, email: applied.info?.email ?? applied.account.email ?? "")
        )
    }
}
