import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// The settings of the project or tenant a request runs in, read from factor-registry on every
/// request (no cache: a change applies to the very next request on every gateway instance), and
/// the checks every client handler starts with (contract §2 prelude).
enum ScopeSettings {
    static func resolve(_ registry: RPCClient, projectId: String, tenantId: String?, requestID: String) async throws
        -> AuthSettings
    {
        try await PeerCall.call(
            registry, ResolveSettings.self, TenantScope(projectId: projectId, tenantId: tenantId), requestID: requestID
        ).settings
    }

    /// `PROJECT_DISABLED` when the tenant's `disableAuth` is set; checked before anything else.
    static func enabled(_ registry: RPCClient, projectId: String, tenantId: String?, requestID: String) async throws
        -> AuthSettings
    {
        let settings = try await resolve(registry, projectId: projectId, tenantId: tenantId, requestID: requestID)
        if settings.disableAuth { throw IdentityToolkitError(.projectDisabled) }
        return settings
    }

    /// The domains sign-in links and reCAPTCHA hostnames may use: the tenant's own, else its project's.
    static func authorizedDomains(
        _ registry: RPCClient, projectId: String, tenantId: String?, settings: AuthSettings? = nil, requestID: String
    ) async throws -> [String] {
        let own: AuthSettings
        if let settings {
            own = settings
        } else {
            own = try await resolve(registry, projectId: projectId, tenantId: tenantId, requestID: requestID)
        }
        guard tenantId != nil, own.authorizedDomains.isEmpty else { return own.authorizedDomains }
        return try await resolve(registry, projectId: projectId, tenantId: nil, requestID: requestID).authorizedDomains
    }

    /// Decision 21: a continue URL is mailed only if its host is one of the scope's authorized
    /// domains (exactly, as Firebase matches them), so a link of ours never forwards to a stranger.
    /// It must be plain http(s) with one reading (ContinueURL) → else `INVALID_CONTINUE_URI`.
    static func requireAuthorized(
        continueUrl: String?, _ registry: RPCClient, projectId: String, tenantId: String?, requestID: String
    ) async throws {
        guard let continueUrl else { return }
        guard let host = ContinueURL.host(of: continueUrl) else { throw IdentityToolkitError(.invalidContinueURI) }
        let domains = try await authorizedDomains(registry, projectId: projectId, tenantId: tenantId, requestID: requestID)
        guard domains.contains(where: { $0.lowercased() == host }) else {
            throw IdentityToolkitError(.unauthorizedDomain, detail: "Domain not allowlisted by project")
        }
    }
}
