import Logging
import ServiceKit
import Synchronization
import Testing

@Suite("Periodic background work")
struct PeriodicServiceTests {
    static let logger = Logger(label: "test")

    /// Waits until `condition` holds, at most 30 s (a loaded CI machine took 1.8 s for three rounds).
    func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<3000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("a failed round is logged and the rounds go on; cancelling stops the service")
    func failuresDoNotStopTheRounds() async throws {
        let rounds = Mutex(0)
        let service = PeriodicService("test work", every: .milliseconds(10), start: .immediately, logger: Self.logger) {
            let round = rounds.withLock { count in
                count += 1
                return count
            }
            if round == 1 { throw TestFailure() }
        }
        let running = Task { try await service.run() }
        try await eventually { rounds.withLock { $0 } >= 3 }
        #expect(rounds.withLock { $0 } >= 3)
        running.cancel()
        try await running.value
        let stopped = rounds.withLock { $0 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(rounds.withLock { $0 } == stopped)
    }

    @Test("started after an interval, nothing runs before it; a stop during the wait ends the service at once")
    func firstRoundWaitsForTheInterval() async throws {
        let rounds = Mutex(0)
        let service = PeriodicService("test work", every: .seconds(3600), logger: Self.logger) {
            rounds.withLock { $0 += 1 }
        }
        let running = Task { try await service.run() }
        try await Task.sleep(for: .milliseconds(50))
        running.cancel()
        try await running.value
        #expect(rounds.withLock { $0 } == 0)
    }

    struct TestFailure: Error {}
}
