import Foundation
import Synchronization

/// What a measured run has done so far, printed once a second while it runs: the wall-clock time,
/// answers and errors in that second, and its slowest answer. A stall (no answers for a while, or
/// one very slow second) then shows when it happened, to set beside the server's and PostgreSQL's logs.
/// Atomics, not an actor: the callers record on every request and must not queue behind each other.
final class LiveTally: Sendable {
    private let answered = Atomic<Int>(0)
    private let failed = Atomic<Int>(0)
    /// The slowest answer since the last report, in microseconds.
    private let slowest = Atomic<UInt64>(0)

    func record(microseconds: UInt64) {
        answered.add(1, ordering: .relaxed)
        var current = slowest.load(ordering: .relaxed)
        while microseconds > current {
            let (exchanged, original) = slowest.compareExchange(
                expected: current, desired: microseconds, ordering: .relaxed
            )
            if exchanged { break }
            current = original
        }
    }

    func recordError() {
        failed.add(1, ordering: .relaxed)
    }

    /// Prints a line every second until cancelled.
    func report(label: String) async {
        let clock = ISO8601DateFormatter()
        clock.formatOptions = [.withTime, .withColonSeparatorInTime, .withFractionalSeconds]
        var second = 0
        while !Task.isCancelled {
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
            second += 1
            let answers = answered.exchange(0, ordering: .relaxed)
            let errors = failed.exchange(0, ordering: .relaxed)
            let worst = slowest.exchange(0, ordering: .relaxed)
            LoadScenarios.log(
                "\(label): \(second) s (\(clock.string(from: Date()))): \(answers) answers, \(errors) errors, slowest "
                    + String(format: "%.1f ms", Double(worst) / 1000)
            )
        }
    }
}
