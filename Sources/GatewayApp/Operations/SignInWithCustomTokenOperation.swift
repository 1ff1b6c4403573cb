import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:signInWithCustomToken` (contract §2.7): session-token checks the token, the user
/// is created when new, and the session's first factor is `custom` (which never takes the MFA
/// branch and can never enroll a second factor). The token's `claims` ride along in every ID
/// token of the session.
struct SignInWithCustomTokenOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(SignInWithCustomTokenRequest.self)
        guard let token = body.token.nonEmpty else {
            throw IdentityToolkitError(.missingCustomToken)
        }
        let projectId = request.callerProjectId
        let verified = try await PeerCall.call(
            sessions, VerifyCustomToken.self,
            .init(projectId: projectId, tenantId: body.tenantId, token: token),
            requestID: request.requestID
        )
        _ = try await scopeSettings.enabled(
            projectId: projectId, tenantId: verified.tenantId, requestID: request.requestID
        )
        let (account, isNewUser) = try await accountFor(verified, projectId: projectId, requestID: request.requestID)
        if account.disabled { throw IdentityToolkitError(.userDisabled) }
        let signedIn = try await PeerCall.call(
            registry, RecordSignIn.self,
            .init(projectId: projectId, tenantId: verified.tenantId, localId: account.localId, firstFactor: "customToken"),
            requestID: request.requestID
        )
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: verified.tenantId, localId: signedIn.localId, signInProvider: .custom,
                authTime: signedIn.lastSignIn, user: SessionUser(signedIn),
                sessionClaims: verified.claims
            ),
            requestID: request.requestID
        )
        return try request.answer(SignInWithCustomTokenResponse(isNewUser: isNewUser).carrying(tokens))
    }

    /// The token's user, created on first sign-in. Two first sign-ins at once both succeed: the
    /// loser of the insert reads the winner's account.
    private func accountFor(_ verified: VerifyCustomToken.Result, projectId: String, requestID: String) async throws
        -> (Account, isNew: Bool)
    {
        let key = GetAccount.Params(projectId: projectId, tenantId: verified.tenantId, localId: verified.localId)
        do {
            return (try await PeerCall.call(registry, GetAccount.self, key, requestID: requestID), false)
        } catch let error as IdentityToolkitError where error.code == .userNotFound {
            do {
                let created = try await PeerCall.call(
                    registry, CreateAccount.self,
                    .init(projectId: projectId, tenantId: verified.tenantId, localId: verified.localId),
                    requestID: requestID
                )
                return (created, true)
            } catch let error as IdentityToolkitError where error.code == .duplicateLocalID {
                return (try await PeerCall.call(registry, GetAccount.self, key, requestID: requestID), false)
            }
        }
    }
}
