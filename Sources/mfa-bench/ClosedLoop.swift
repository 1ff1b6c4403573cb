import Histogram

/// A scenario ran out of what it prepared (pending credentials, users with room for a factor): the
/// caller stops instead of counting errors.
struct BenchExhausted: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Runs `concurrency` callers back to back until the time is up (or what they use runs out);
/// latencies in microseconds. Each caller gets its index, so a scenario can give every caller its own state.
enum ClosedLoop {
    static func run(
        concurrency: Int, seconds: Double, call: @escaping @Sendable (Int) async throws -> Void
    ) async -> (histogram: Histogram<UInt64>, errors: [String: Int]) {
        let result = await timedRun(concurrency: concurrency, seconds: seconds, call: call)
        return (result.histogram, result.errors)
    }

    /// Also how long the callers actually ran (less than `seconds` when a scenario ran out).
    ///
    /// With a `rate` (requests per second over all callers) each caller follows a schedule instead
    /// of starting its next request at once: caller `i` is due at `i / rate`, then every
    /// `concurrency / rate` seconds. A latency is measured from when the request was due, so a
    /// server that falls behind is charged for the wait (no coordinated omission).
    static func timedRun(
        concurrency: Int, seconds: Double, rate: Double? = nil, tally: LiveTally? = nil,
        call: @escaping @Sendable (Int) async throws -> Void
    ) async -> (histogram: Histogram<UInt64>, errors: [String: Int], elapsed: Double) {
        let started = ContinuousClock.now
        let deadline = started + .milliseconds(Int(seconds * 1000))
        let interval = rate.map { Duration.nanoseconds(Int64(Double(concurrency) / $0 * 1e9)) }
        let (histogram, errors): (Histogram<UInt64>, [String: Int]) = await withTaskGroup(of: (Histogram<UInt64>, [String: Int]).self) {
            group in
            for caller in 0..<concurrency {
                group.addTask {
                    var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
                    var errors: [String: Int] = [:]
                    var due = started + .nanoseconds(rate.map { Int64(Double(caller) / $0 * 1e9) } ?? 0)
                    while ContinuousClock.now < deadline {
                        let start: ContinuousClock.Instant
                        if let interval {
                            if due > ContinuousClock.now {
                                try? await Task.sleep(until: due, tolerance: .microseconds(100), clock: .continuous)
                            }
                            if due >= deadline { break }
                            start = due
                            due += interval
                        } else {
                            start = ContinuousClock.now
                        }
                        do {
                            try await call(caller)
                            let elapsed = ContinuousClock.now - start
                            let microseconds =
                                UInt64(elapsed.components.seconds) * 1_000_000
                                + UInt64(elapsed.components.attoseconds / 1_000_000_000_000)
                            _ = histogram.record(microseconds)
                            tally?.record(microseconds: microseconds)
                        } catch is BenchExhausted {
                            break
                        } catch {
                            errors["\(error)", default: 0] += 1
                            tally?.recordError()
                        }
                    }
                    return (histogram, errors)
                }
            }
            var total = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
            var errors: [String: Int] = [:]
            for await (histogram, failed) in group {
                total.add(histogram)
                errors.merge(failed, uniquingKeysWith: +)
            }
            return (total, errors)
        }
        let elapsed = ContinuousClock.now - started
        return (histogram, errors, min(seconds, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
    }

    /// One line of results.
    static func report(_ name: String, concurrency: Int, seconds: Double, _ result: (histogram: Histogram<UInt64>, errors: [String: Int]))
        -> String
    {
        let histogram = result.histogram
        func ms(_ percentile: Double) -> String {
            String(format: "%.2f", Double(histogram.valueAtPercentile(percentile)) / 1000)
        }
        let rate = Double(histogram.totalCount) / seconds
        var line = "\(name) x\(concurrency): \(String(format: "%.0f", rate))/s, p50 \(ms(50)) ms, p90 \(ms(90)) ms, "
        line += "p99 \(ms(99)) ms, p99.9 \(ms(99.9)) ms, \(histogram.totalCount) ok"
        let failures = result.errors.values.reduce(0, +)
        line += failures == 0 ? ", 0 errors" : ", \(failures) errors: \(result.errors)"
        return line
    }
}
