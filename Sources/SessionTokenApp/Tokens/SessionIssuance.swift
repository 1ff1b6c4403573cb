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
        // A finalize retried with the same credential gets the same token (FinishingTokens).
        let token =
            try params.consumePendingCredential.map {
                try finishing.token(finishing: $0, projectId: params.projectId, tenantId: params.tenantId, localId: params.localId)
            }
            ?? RefreshToken(
                value: SealedRefreshToken(projectId: params.projectId, tenantId: params.tenantId, localId: params.localId)
                    .seal(with: sealKey)
            )
        var answered = params
        answered.authTime = try await sessions.startFamily(params, token: token)
        let idToken = try issuer.sign(issuer.claims(for: answered))
        return .init(idToken: idToken, refreshToken: token.value, expiresIn: String(issuer.lifetime))
    }
}
