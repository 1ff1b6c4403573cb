import Contracts
import Synchronization

/// Project and tenant rows (their settings with them) as last read, so that the requests of a
/// sign-in do not each read `control.projects` or `control.tenants` again.
///
/// Every change to those tables, by any instance or by hand in psql, fires a trigger that notifies
/// channel `mfa_settings` with the project's id (``SettingsListener``). Entries are used only while
/// this process is listening on that channel, so an instance that misses notifications (its
/// listening connection is down) reads from the database until it listens again, and then starts
/// from an empty cache. This process's own writes drop the project's entries as soon as they
/// commit, without waiting for the notification. An entry also expires after `lifetime`, which
/// bounds how long a change can go unseen if a notification were lost on a connection that looks
/// alive.
///
/// A read that started before a change must not store what it read after the change dropped the
/// entry: each read takes a ticket (the generation) first, and a store succeeds only if no change
/// arrived since.
final class SettingsCache: Sendable {
    enum Key: Hashable, Sendable {
        case project(String)
        case tenant(projectId: String, tenantId: String)

        var projectId: String {
            switch self {
            case .project(let id), .tenant(let id, _): id
            }
        }
    }

    enum Entry: Sendable {
        case project(ProjectConfig)
        case tenant(Tenant)
    }

    struct Ticket: Sendable { fileprivate let generation: UInt64 }

    private struct State {
        var entries: [Key: (entry: Entry, storedAt: ContinuousClock.Instant)] = [:]
        var generation: UInt64 = 0
        var listening = false
        /// Callers of `change(after:within:)`, resumed by the next change.
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0

        /// Every change moves the generation and wakes the waiters.
        mutating func advance() {
            generation &+= 1
            for waiter in waiters.values { waiter.resume() }
            waiters.removeAll()
        }
    }

    private let state = Mutex(State())
    let lifetime: Duration
    /// Entries beyond this many are not stored (a project with very many tenants stays correct,
    /// just uncached for the rest).
    let capacity: Int

    init(lifetime: Duration = .seconds(5), capacity: Int = 2_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func entry(_ key: Key) -> Entry? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard state.listening, let stored = state.entries[key] else { return nil }
            guard now - stored.storedAt < lifetime else {
                state.entries[key] = nil
                return nil
            }
            return stored.entry
        }
    }

    /// Taken before reading the database; `nil` while not listening (nothing may be stored then).
    func ticket() -> Ticket? {
        state.withLock { $0.listening ? Ticket(generation: $0.generation) : nil }
    }

    func store(_ entry: Entry, for key: Key, ticket: Ticket?) {
        guard let ticket else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.listening, state.generation == ticket.generation else { return }
            guard state.entries[key] != nil || state.entries.count < capacity else { return }
            state.entries[key] = (entry, now)
        }
    }

    /// A project's row or one of its tenants' changed.
    func invalidate(projectId: String) {
        state.withLock { state in
            state.advance()
            state.entries = state.entries.filter { $0.key.projectId != projectId }
        }
    }

    /// A change whose project is not known here (a tenant changed by id alone).
    func invalidateAll() {
        state.withLock { state in
            state.advance()
            state.entries.removeAll()
        }
    }

    /// The listening connection started (`true`) or stopped listening (`false`).
    func setListening(_ listening: Bool) {
        state.withLock { state in
            state.advance()
            state.entries.removeAll()
            state.listening = listening
        }
    }

    /// What a gateway's own settings cache follows (`settings.watch`): returns as soon as the
    /// generation is not `generation` (a change since the caller last asked), or after `limit`
    /// with nothing changed. While this process is not listening nothing it answers may be cached.
    func change(after generation: UInt64?, within limit: Duration) async -> (generation: UInt64, listening: Bool) {
        let id: UInt64? = state.withLock { state in
            guard state.listening, state.generation == generation else { return nil }
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        if let id {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    guard state.generation == generation, state.listening else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow {
                    continuation.resume()
                    return
                }
                // Started once the waiter is in place, so it cannot miss it; left to run out after
                // a change resumed the waiter first (it then finds nothing to resume).
                Task {
                    try? await Task.sleep(for: limit)
                    self.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                }
            }
        }
        return state.withLock { ($0.generation, $0.listening) }
    }
}
