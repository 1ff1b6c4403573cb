import Contracts
import ServiceKit

/// `session.issue`: a new session after a sign-in: its refresh-token family (using up the pending
/// credential it finishes, in the same statement) and its first ID token.
struct SessionIssuance: Sendable {
    let sessions: SessionRepository
    let issuer: IDTokenIssuer
    let finishing: FinishingTokens
    let sealKey: TokenSealKey

    func issue(_ params: IssueSession.Params) async throws -> IssueSession.Result {
        // A finalize retried exactly gets the same token (FinishingTokens, decision 22).
        let (projectId, tenantId, localId) = (params.projectId, params.tenantId, params.localId)
        let token: RefreshToken
        if let credential = params.consumePendingCredential {
            token = try finishing.token(finishing: credential, projectId: projectId, tenantId: tenantId, localId: localId)
        } else if params.finishesEnrollment == true, let enrollmentId = params.secondFactorIdentifier {
            token = try finishing.token(finishingEnrollment: enrollmentId, projectId: projectId, tenantId: tenantId, localId: localId)
        } else {
            token = RefreshToken(
                value: try SealedRefreshToken(projectId: projectId, tenantId: tenantId, localId: localId).seal(with: sealKey)
            )
        }
        var answered = params
        answered.authTime = try await sessions.startFamily(params, token: token)
        let idToken = try issuer.sign(issuer.claims(for: answered))
        return .init(idToken: idToken, refreshToken: token.value, expiresIn: String(issuer.lifetime))
    }
}
