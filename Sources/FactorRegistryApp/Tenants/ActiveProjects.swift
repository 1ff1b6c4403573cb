import Synchronization

/// The projects this process has seen active. A project only ever moves from `provisioning` to
/// `active` (projects are never deleted or disabled through this table), so a positive answer can be
/// remembered for the life of the process: every account and settings call then skips the state
/// query. Negative answers are never remembered.
final class ActiveProjects: Sendable {
    private let known = Mutex<Set<String>>([])

    func contains(_ projectId: String) -> Bool {
        known.withLock { $0.contains(projectId) }
    }

    func insert(_ projectId: String) {
        _ = known.withLock { $0.insert(projectId) }
    }
}
