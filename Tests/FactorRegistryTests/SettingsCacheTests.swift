import Contracts
import Testing

@testable import FactorRegistryApp

/// The cache's rules, without a database: what it may serve, and what it must refuse to store.
@Suite("The settings cache serves only what no change has overtaken")
struct SettingsCacheTests {
    static let config = ProjectConfig(projectId: "demo-project", settings: .projectDefaults, version: 3, apiKey: nil)
    static let key = SettingsCache.Key.project("demo-project")

    static func listening(lifetime: Duration = .seconds(5), capacity: Int = 10) -> SettingsCache {
        let cache = SettingsCache(lifetime: lifetime, capacity: capacity)
        cache.setListening(true)
        return cache
    }

    @Test("a stored entry is served until its project changes")
    func servedUntilChanged() {
        let cache = Self.listening()
        cache.store(.project(Self.config), for: Self.key, ticket: cache.ticket())
        #expect(cache.entry(Self.key) != nil)
        cache.invalidate(projectId: "other-project")
        #expect(cache.entry(Self.key) != nil)
        cache.invalidate(projectId: "demo-project")
        #expect(cache.entry(Self.key) == nil)
    }

    @Test("a tenant's entry goes with its project's change")
    func tenantGoesWithItsProject() {
        let cache = Self.listening()
        let tenant = Tenant(
            projectId: "demo-project", tenantId: "t1", displayName: nil, state: .active, createdAt: "2026-01-01T00:00:00.000Z",
            settings: .tenantDefaults, version: 0
        )
        let key = SettingsCache.Key.tenant(projectId: "demo-project", tenantId: "t1")
        cache.store(.tenant(tenant), for: key, ticket: cache.ticket())
        #expect(cache.entry(key) != nil)
        cache.invalidate(projectId: "demo-project")
        #expect(cache.entry(key) == nil)
    }

    @Test("a read that started before a change cannot store what it read")
    func readOvertakenByChangeIsNotStored() {
        let cache = Self.listening()
        let ticket = cache.ticket()
        cache.invalidate(projectId: "demo-project")
        cache.store(.project(Self.config), for: Self.key, ticket: ticket)
        #expect(cache.entry(Self.key) == nil)
    }

    @Test("nothing is served or stored while notifications are not being received")
    func nothingWithoutNotifications() {
        let cache = SettingsCache()
        #expect(cache.ticket() == nil)
        cache.store(.project(Self.config), for: Self.key, ticket: nil)
        cache.setListening(true)
        #expect(cache.entry(Self.key) == nil)

        cache.store(.project(Self.config), for: Self.key, ticket: cache.ticket())
        let ticket = cache.ticket()
        cache.setListening(false)
        #expect(cache.entry(Self.key) == nil)
        // Listening again starts empty: whatever changed in between was not heard.
        cache.setListening(true)
        #expect(cache.entry(Self.key) == nil)
        cache.store(.project(Self.config), for: Self.key, ticket: ticket)
        #expect(cache.entry(Self.key) == nil)
    }

    @Test("an entry expires after its lifetime even if no change was heard")
    func expires() async throws {
        let cache = Self.listening(lifetime: .milliseconds(50))
        cache.store(.project(Self.config), for: Self.key, ticket: cache.ticket())
        #expect(cache.entry(Self.key) != nil)
        try await Task.sleep(for: .milliseconds(80))
        #expect(cache.entry(Self.key) == nil)
    }

    @Test("beyond its capacity the cache stores nothing more")
    func bounded() {
        let cache = Self.listening(capacity: 2)
        for id in ["a", "b", "c"] {
            cache.store(.project(Self.config), for: .project(id), ticket: cache.ticket())
        }
        #expect(cache.entry(.project("a")) != nil)
        #expect(cache.entry(.project("b")) != nil)
        #expect(cache.entry(.project("c")) == nil)
    }
}
