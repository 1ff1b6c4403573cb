import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `session.inspectRefresh` and `session.refresh`: a refresh token read (with reuse detection) and
/// exchanged for a new one and a new ID token. Each client address has a budget of refreshes.
struct RefreshExchange: Sendable {
    let refreshSessions: RefreshSessions
    let issuer: IDTokenIssuer
    let limiter: RateLimiter
    let perAddress: RateLimiter.Rule

    static let tooMany = RPCError(code: .invalidRefreshToken, business: IdentityToolkitError(.tooManyAttemptsTryLater))

    func inspect(_ params: InspectRefreshToken.Params) async throws -> InspectRefreshToken.Result {
        try await spend(params.clientAddress)
        let family = try await refreshSessions.family(of: RefreshToken(value: params.refreshToken))
        try RefreshSessions.checkEnrollmentWindow(family)
        return .init(
            projectId: family.projectId, tenantId: family.tenantId, localId: family.localId, signedInAt: family.signedInAt,
            authTime: family.authTime, secondFactorIdentifier: family.secondFactorIdentifier
        )
    }

    /// With the account's state, the account's checks are made here, in contract order, and the
    /// address's budget is spent here (the gateway then made no inspection).
    func refresh(_ params: RefreshSession.Params) async throws -> RefreshSession.Result {
        let presented = RefreshToken(value: params.refreshToken)
        if params.account != nil { try await spend(params.clientAddress) }
        let family = try await refreshSessions.family(of: presented)
        if let account = params.account {
            try RefreshSessions.check(family, against: account)
        } else {
            try RefreshSessions.checkEnrollmentWindow(family)
        }
        let next = try await refreshSessions.rotate(presented, family: family)
        // The refreshed token repeats the sign-in: first factor, second factor, auth_time.
        let claims = issuer.claims(
            for: .init(
                projectId: family.projectId, tenantId: family.tenantId, localId: family.localId,
                signInProvider: family.signInProvider, secondFactor: family.secondFactor,
                secondFactorIdentifier: family.secondFactorIdentifier, authTime: family.authTime, user: params.user,
                sessionClaims: family.sessionClaims, secondFactorAuthTime: family.secondFactorAuthTime,
                enrollmentOnlyUntil: family.enrollmentOnlyUntil, firstFactorIdentifier: family.firstFactorIdentifier
            )
        )
        return .init(
            idToken: try issuer.sign(claims), refreshToken: next.value, expiresIn: String(issuer.lifetime), localId: family.localId
        )
    }

    private func spend(_ address: String?) async throws {
        if let address, !(try await limiter.take("refresh:\(address)", rule: perAddress)) { throw Self.tooMany }
    }
}
