import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// The ID-token prelude of every handler that takes an `idToken` (contract §2): the token must be
/// ours and unexpired (`INVALID_ID_TOKEN`, `TOKEN_EXPIRED`), for the caller's project and the
/// request's tenant (`TENANT_ID_MISMATCH`), of a user that exists (`USER_NOT_FOUND`, also for an
/// account created after the token's sign-in: a deleted account's uid given to a new one), issued
/// after the user's `validSince` (`TOKEN_EXPIRED`) and not disabled (`USER_DISABLED`).
struct SignedInUser: Sendable {
    let token: VerifyIDToken.Result
    let account: Account
    /// The settings of the user's project or tenant.
    let settings: AuthSettings

    /// `allowingEnrollmentOnly`: the operation is one an enrollment-only session (MANDATORY MFA)
    /// may call; every other refuses such a session (MandatoryEnrollment).
    ///
    /// `retrying`: the enrollment a retried `mfaEnrollment:finalize` finishes. A token that
    /// enrollment revoked (and nothing since) is still good for finishing it; the challenge check
    /// that follows proves the retry is the same enrollment.
    static func resolve(
        _ body: some SignedInRequest, _ request: PublicRequest, registry: PeerClient<FactorRegistryAPI>,
        sessions: PeerClient<SessionTokenAPI>,
        scopeSettings: CachedSettings, retrying enrollmentId: String? = nil, allowingEnrollmentOnly: Bool = false
    ) async throws -> SignedInUser {
        guard let idToken = body.idToken.nonEmpty else {
            throw IdentityToolkitError(.missingIDToken)
        }
        let token = try await PeerCall.call(sessions, VerifyIDToken.self, .init(idToken: idToken), requestID: request.requestID)
        if case .apiKey(let projectId) = request.caller, projectId != token.projectId {
            throw IdentityToolkitError(.invalidIDToken)
        }
        if let tenantId = body.tenantId, tenantId != token.tenantId {
            throw IdentityToolkitError(.tenantIDMismatch)
        }
        let settings = try await scopeSettings.enabled(
            projectId: token.projectId, tenantId: token.tenantId, requestID: request.requestID
        )
        let account = try await PeerCall.call(
            registry, GetAccount.self,
            .init(projectId: token.projectId, tenantId: token.tenantId, localId: token.localId),
            requestID: request.requestID
        )
        if account.postdates(signInAt: token.authTime) {
            throw IdentityToolkitError(.userNotFound)
        }
        if let validSince = account.validSince, token.issuedAt < validSince,
            !(enrollmentId.map(account.lastRevoked(byEnrolling:)) ?? false)
        {
            throw IdentityToolkitError(.tokenExpired)
        }
        if account.disabled { throw IdentityToolkitError(.userDisabled) }
        if let until = token.enrollmentOnlyUntil {
            guard allowingEnrollmentOnly else { throw MandatoryEnrollment.enrollFirst }
            if EpochSeconds.now >= until { throw IdentityToolkitError(.tokenExpired) }
        }
        // Decision 4: a session established with a factor that has since been withdrawn is over.
        if let factor = token.secondFactorIdentifier, !account.lists(factor: factor) {
            throw IdentityToolkitError(.tokenExpired)
        }
        // So is one a deleted passkey started (decision 24): its refresh tokens ended with it, and
        // its ID tokens end here, as a withdrawn second factor's do.
        if let credentialId = token.firstFactorIdentifier.flatMap(PasskeyCredential.credentialId(factorIdentifier:)) {
            do {
                let found = try await PeerCall.call(
                    registry, FindPasskey.self, .init(projectId: token.projectId, tenantId: token.tenantId, credentialId: credentialId),
                    requestID: request.requestID
                )
                guard found.localId == account.localId else { throw IdentityToolkitError(.tokenExpired) }
            } catch let error as IdentityToolkitError where error.code == .passkeyEnrollmentNotFound {
                throw IdentityToolkitError(.tokenExpired)
            }
        }
        return SignedInUser(token: token, account: account, settings: settings)
    }
}
