import Contracts

/// One thing `/readyz` verifies: the database, migrations, a peer service.
public struct ReadinessCheck: Sendable {
    public let name: String
    let probe: @Sendable () async -> DependencyState

    public init(name: String, probe: @escaping @Sendable () async -> DependencyState) {
        self.name = name
        self.probe = probe
    }

    /// Runs the probe, giving up after `timeout` so a hung dependency makes the service unready
    /// instead of hanging the probe.
    func run(timeout: Duration) async -> DependencyState {
        await withTaskGroup(of: DependencyState?.self) { group in
            group.addTask { await probe() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : DependencyState(ready: false, detail: "no answer within \(timeout)")
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? DependencyState(ready: false, detail: "no answer")
        }
    }
}
