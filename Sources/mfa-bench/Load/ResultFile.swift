import Foundation
import Histogram

/// One scenario's figures, as printed and as written to the JSON result file.
struct ScenarioResult: Codable, Sendable {
    let scenario: String
    let concurrency: Int
    /// The protocol to the gateway.
    let http: String
    /// Requests per second the clients were paced at; `nil` for a closed loop.
    let pacedRate: Double?
    let seconds: Double
    let ok: Int
    let requestsPerSecond: Double
    let p50Ms: Double
    let p90Ms: Double
    let p99Ms: Double
    let p999Ms: Double
    let errors: [String: Int]

    init(
        scenario: String, concurrency: Int, seconds: Double, histogram: Histogram<UInt64>, errors: [String: Int], http: String,
        pacedRate: Double?
    ) {
        func ms(_ percentile: Double) -> Double { Double(histogram.valueAtPercentile(percentile)) / 1000 }
        self.scenario = scenario
        self.concurrency = concurrency
        self.http = http
        self.pacedRate = pacedRate
        self.seconds = seconds
        ok = Int(histogram.totalCount)
        requestsPerSecond = Double(histogram.totalCount) / seconds
        p50Ms = ms(50)
        p90Ms = ms(90)
        p99Ms = ms(99)
        p999Ms = ms(99.9)
        self.errors = errors
    }

    var line: String {
        var text = String(
            format: "%@ x%d%@: %.0f/s, p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, %d ok", scenario, concurrency,
            pacedRate.map { String(format: " paced %.0f/s", $0) } ?? "", requestsPerSecond, p50Ms, p90Ms, p99Ms, p999Ms, ok
        )
        let failed = errors.values.reduce(0, +)
        text +=
            failed == 0
            ? ", 0 errors"
            : ", \(failed) errors: " + errors.sorted { $0.value > $1.value }.map { "\($0.key) ×\($0.value)" }.joined(separator: "; ")
        return text
    }
}

struct LoadReport: Codable, Sendable {
    let startedAt: String
    let gateway: String
    let users: Int
    let passwordHashing: String
    let results: [ScenarioResult]
}
