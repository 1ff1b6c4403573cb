import Contracts
import Prometheus
import ServiceKit
import TenantStore

/// `session.issue`: a new session after a sign-in: its refresh-token family (using up the pending
/// credential it finishes, in the same statement) and its first ID token.
struct SessionIssuance: Sendable {
    let sessions: SessionRepository
    let issuer: IDTokenIssuer
    let finishing: FinishingTokens
    let sealKey: TokenSealKey
    /// `mfa_enrollment_only_sessions_total{scope}`: sessions of users who still have to enroll a
    /// factor under MANDATORY (docs/mfa-policy.md); `mfa-admin users unenrolled` says who they are.
    let counters: LabeledCounters

    static var enrollmentOnlySessions: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", metricName: "enrollment_only_sessions", unitName: "total",
            helpText: "Enrollment-only sessions started under MANDATORY MFA, by tenant schema"
        )
    }

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
        if params.enrollmentOnlyUntil != nil, let schema = try? ScopeSchema.of(projectId, tenantId) {
            counters.increment(Self.enrollmentOnlySessions, [("scope", schema.name)])
        }
        let idToken = try issuer.sign(issuer.claims(for: answered))
        return .init(idToken: idToken, refreshToken: token.value, expiresIn: String(issuer.lifetime))
    }
}
