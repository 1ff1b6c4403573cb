import Contracts
import ServiceKit

/// Deleting accounts also deletes what session-token and challenge-issuer hold for them: sessions
/// and pending sign-ins, TOTP secrets and verification sessions. Without that an account created
/// later with the same uid (admins choose uids) would be signed in by the old account's refresh
/// tokens, and the old secrets would stay stored.
///
/// Order: forget, then delete the account, then forget again. A failure of the first step fails
/// the request with the account kept, so a retry finishes the job and a crash leaves nothing of a
/// deleted account behind. The second pass (best effort) catches a sign-in that completed in
/// between.
struct AccountErasure: Sendable {
    let sessions: PeerClient<SessionTokenAPI>
    let challenges: PeerClient<ChallengeIssuerAPI>

    /// Both services at once.
    func forget(_ accounts: AccountsToForget, requestID: String) async throws {
        async let sessionRows = PeerCall.call(sessions, ForgetAccountSessions.self, accounts, requestID: requestID)
        async let challengeRows = PeerCall.call(challenges, ForgetAccountChallenges.self, accounts, requestID: requestID)
        _ = try await (sessionRows, challengeRows)
    }

    /// Factors removed from factor-registry (a withdraw, an admin's `accounts:update` with `mfa`):
    /// the sessions established with them end (`TOKEN_EXPIRED`, decision 4; the token endpoint also
    /// checks the factor, so a failure here opens nothing), and a TOTP factor's secret is deleted.
    /// The metadata is gone, so the secret grants nothing; a failure to delete it leaves an orphan
    /// row, never a way in, and does not fail the call.
    func forgetFactors(_ removed: [Enrollment], projectId: String, tenantId: String?, localId: String, requestID: String)
        async throws
    {
        for factor in removed {
            _ = try await PeerCall.call(
                sessions, RevokeFactorSessions.self,
                .init(projectId: projectId, tenantId: tenantId, localId: localId, secondFactorIdentifier: factor.mfaEnrollmentId),
                requestID: requestID
            )
            // A TOTP secret or a recovery-code set: challenge-issuer deletes either by the id.
            if SecondFactorKinds.of(factor.kind).keepsSecret {
                _ = try? await PeerCall.call(
                    challenges, DeleteTOTPFactor.self,
                    .init(projectId: projectId, tenantId: tenantId, localId: localId, mfaEnrollmentId: factor.mfaEnrollmentId),
                    requestID: requestID
                )
            }
        }
    }

    /// `delete` between the two passes.
    func deleting<Result: Sendable>(
        _ accounts: AccountsToForget, requestID: String, _ delete: () async throws -> Result
    ) async throws -> Result {
        try await forget(accounts, requestID: requestID)
        let result = try await delete()
        try? await forget(accounts, requestID: requestID)
        return result
    }
}
