import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import Synchronization

/// The settings of each project and tenant as factor-registry last answered them: the gateway's
/// one door to a scope's settings (every handler reads them here; a miss asks factor-registry's
/// `settings.resolve`), so that no flow makes a settings call while the cache is live, and the
/// checks every client handler starts with (contract §2 prelude: `PROJECT_DISABLED` first).
///
/// How stale an entry can be, stated: the gateway keeps a long poll open to factor-registry
/// (`settings.watch`), which answers as soon as any setting changes (its own `LISTEN` on
/// `mfa_settings` hears every change, by any instance or by hand in psql); the answer empties
/// this cache. So a change is seen here one notification and one RPC answer after it commits
/// (about a millisecond on one machine). Entries are used only while the poll runs and
/// factor-registry says it is listening: when either stops, every read goes to factor-registry
/// again until both are back. Changes made through this gateway's admin API empty the cache before
/// their answer leaves, and an entry is never older than `lifetime` (the same bound
/// factor-registry keeps for a notification lost on a connection that looks alive).
final class CachedSettings: Sendable {
    private struct Key: Hashable {
        let projectId: String
        let tenantId: String?
    }

    private struct State {
        var entries: [Key: (settings: AuthSettings, storedAt: ContinuousClock.Instant)] = [:]
        /// Production API keys factor-registry resolved: key → project. A project's key lives in its
        /// row, whose every change notifies like a setting's, so it is kept and dropped the same way.
        var apiKeys: [String: (projectId: String, storedAt: ContinuousClock.Instant)] = [:]
        /// factor-registry's generation, as its last watch answer gave it; `nil`: not following.
        var following: UInt64?
        /// Moves on every change seen, so a read that started before one does not store after it.
        var epoch: UInt64 = 0
    }

    private let state = Mutex(State())
    let registry: PeerClient<FactorRegistryAPI>
    let lifetime: Duration
    let capacity: Int
    /// How long one watch waits on factor-registry before it answers "nothing changed".
    let watchWait: Duration

    init(
        registry: PeerClient<FactorRegistryAPI>, lifetime: Duration = .seconds(5), capacity: Int = 2_000, watchWait: Duration = .seconds(4)
    ) {
        self.registry = registry
        self.lifetime = lifetime
        self.capacity = capacity
        self.watchWait = watchWait
    }

    /// The scope's settings, `PROJECT_DISABLED` first: checked before anything else.
    func enabled(projectId: String, tenantId: String?, requestID: String) async throws -> AuthSettings {
        let settings = try await settings(projectId: projectId, tenantId: tenantId, requestID: requestID)
        if settings.disableAuth { throw IdentityToolkitError(.projectDisabled) }
        return settings
    }

    /// The scope's settings, whatever they say.
    func settings(projectId: String, tenantId: String?, requestID: String) async throws -> AuthSettings {
        let key = Key(projectId: projectId, tenantId: tenantId)
        let now = ContinuousClock.now
        let cached: AuthSettings? = state.withLock { state in
            guard state.following != nil, let entry = state.entries[key], now - entry.storedAt < lifetime else { return nil }
            return entry.settings
        }
        let settings: AuthSettings
        if let cached {
            settings = cached
        } else {
            let epoch: UInt64? = state.withLock { $0.following == nil ? nil : $0.epoch }
            settings = try await PeerCall.call(
                registry, ResolveSettings.self, TenantScope(projectId: projectId, tenantId: tenantId), requestID: requestID
            ).settings
            if let epoch {
                state.withLock { state in
                    guard state.following != nil, state.epoch == epoch else { return }
                    guard state.entries[key] != nil || state.entries.count < capacity else { return }
                    state.entries[key] = (settings, now)
                }
            }
        }
        return settings
    }

    /// The domains sign-in links and reCAPTCHA hostnames may use: the tenant's own, else its project's.
    func authorizedDomains(projectId: String, tenantId: String?, settings: AuthSettings? = nil, requestID: String) async throws
        -> [String]
    {
        let own: AuthSettings
        if let settings {
            own = settings
        } else {
            own = try await self.settings(projectId: projectId, tenantId: tenantId, requestID: requestID)
        }
        guard tenantId != nil, own.authorizedDomains.isEmpty else { return own.authorizedDomains }
        return try await self.settings(projectId: projectId, tenantId: nil, requestID: requestID).authorizedDomains
    }

    /// Decision 21: a continue URL is mailed only if its host is one of the scope's authorized
    /// domains (exactly, as Firebase matches them), so a link of ours never forwards to a stranger.
    /// It must be plain http(s) with one reading (ContinueURL) → else `INVALID_CONTINUE_URI`.
    func requireAuthorized(continueUrl: String?, projectId: String, tenantId: String?, requestID: String) async throws {
        guard let continueUrl else { return }
        guard let host = ContinueURL.host(of: continueUrl) else { throw IdentityToolkitError(.invalidContinueURI) }
        let domains = try await authorizedDomains(projectId: projectId, tenantId: tenantId, requestID: requestID)
        guard domains.contains(where: { $0.lowercased() == host }) else {
            throw IdentityToolkitError(.unauthorizedDomain, detail: "Domain not allowlisted by project")
        }
    }

    /// The project whose own API key `key` is (production mode): `UNKNOWN_API_KEY` from
    /// factor-registry for a key no active project has. Known keys are kept as settings are, so a
    /// public request costs no call for its key; a removed project's key is forgotten with the
    /// notification its removal sends. Unknown keys are never kept (they would fill the cache).
    func project(ofAPIKey key: String, requestID: String) async throws -> String {
        let now = ContinuousClock.now
        let cached: String? = state.withLock { state in
            guard state.following != nil, let entry = state.apiKeys[key], now - entry.storedAt < lifetime else { return nil }
            return entry.projectId
        }
        if let cached { return cached }
        let epoch: UInt64? = state.withLock { $0.following == nil ? nil : $0.epoch }
        let projectId = try await registry.call(ResolveAPIKey.self, .init(apiKey: key), requestID: requestID).projectId
        if let epoch {
            state.withLock { state in
                guard state.following != nil, state.epoch == epoch else { return }
                guard state.apiKeys[key] != nil || state.apiKeys.count < capacity else { return }
                state.apiKeys[key] = (projectId, now)
            }
        }
        return projectId
    }

    /// A change made through this gateway: forget everything at once.
    func clear() {
        state.withLock { state in
            state.epoch &+= 1
            state.entries.removeAll()
            state.apiKeys.removeAll()
        }
    }

    /// Follows factor-registry's changes until a watch fails (then the cache is off and the error
    /// is thrown; the caller tries again later). Runs for as long as the gateway does.
    func follow() async throws {
        do {
            var generation: UInt64? = nil
            while !Task.isCancelled {
                let answer = try await registry.call(
                    WatchSettings.self,
                    .init(generation: generation, waitMilliseconds: Int(watchWait.components.seconds * 1000)),
                    requestID: "settings-watch"
                )
                state.withLock { state in
                    if state.following != answer.generation || !answer.listening {
                        state.epoch &+= 1
                        state.entries.removeAll()
                        state.apiKeys.removeAll()
                    }
                    state.following = answer.listening ? answer.generation : nil
                }
                // Not listening: ask again after a pause rather than at once.
                if !answer.listening { try await Task.sleep(for: .seconds(1)) }
                generation = answer.generation
            }
        } catch {
            stopFollowing()
            throw error
        }
        stopFollowing()
    }

    private func stopFollowing() {
        state.withLock { state in
            state.following = nil
            state.epoch &+= 1
            state.entries.removeAll()
            state.apiKeys.removeAll()
        }
    }
}
