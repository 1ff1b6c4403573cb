import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `POST v1/projects/{p}[/tenants/{t}]:createSessionCookie`: an admin (the app's backend, through
/// an Admin SDK) trades a user's fresh ID token for a session cookie of up to two weeks. In the
/// emulator's order: `MISSING_ID_TOKEN`, `INVALID_DURATION` (5 minutes to 14 days; 14 days when
/// unset), then the ID-token prelude (`INVALID_ID_TOKEN`, `TOKEN_EXPIRED` for a revoked one,
/// `USER_DISABLED`…), whose project must be the path's. The cookie is signed with the ID tokens'
/// keys (also published at `v1/sessionCookiePublicKeys`) under Firebase's session-cookie issuer.
struct SessionCookieOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let sessions: PeerClient<SessionTokenAPI>

    static let durations: ClosedRange<Int64> = 300...1_209_600

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(CreateSessionCookieRequest.self)
        let scope = try AdminScope(request, tenantId: body.tenantId)
        guard let idToken = body.idToken.nonEmpty else { throw IdentityToolkitError(.missingIDToken) }
        var duration = Self.durations.upperBound
        if let text = body.validDuration.nonEmpty {
            guard let seconds = Int64(text), Self.durations.contains(seconds) else { throw IdentityToolkitError(.invalidDuration) }
            duration = seconds
        }
        let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings)
        guard user.token.projectId == scope.projectId else { throw IdentityToolkitError(.invalidIDToken) }
        if let tenant = scope.tenantId, tenant != user.token.tenantId { throw IdentityToolkitError(.tenantIDMismatch) }
        let cookie = try await PeerCall.call(
            sessions, IssueSessionCookie.self, .init(idToken: idToken, validDuration: duration), requestID: request.requestID
        )
        return try request.answer(CreateSessionCookieResponse(sessionCookie: cookie.sessionCookie))
    }
}
