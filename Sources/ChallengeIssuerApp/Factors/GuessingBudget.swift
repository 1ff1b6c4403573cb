import Configuration
import ServiceKit

/// How many code checks a factor may see per day, so that the chance of guessing it within any 24
/// hours stays below `guessing.maximumDailyOdds` (1 in 10^4).
///
/// A check guesses right with probability `acceptedCodes / 10^6` (a TOTP window of `2a + 1` steps
/// accepts that many codes; an SMS session one). A budget is a token bucket that starts full with
/// `c` and refills `c` a day, so any 24 hours see at most `2c` checks; `c` is the largest whole
/// number with `2c × acceptedCodes / 10^6 < odds`. With the defaults: TOTP at `adjacentIntervals` 5
/// gets 4 wrong codes a day (at most 8 in any 24 hours: 8.8 in 10^5), SMS 49 checks per number and
/// per account (at most 98: 9.8 in 10^5). Never below 1, so a very wide window still lets its owner in.
struct GuessingBudget: Sendable {
    let maximumDailyOdds: Double

    init(maximumDailyOdds: Double) {
        self.maximumDailyOdds = maximumDailyOdds
    }

    /// Development's default (1 in 100) leaves a test suite room to count its own failures.
    init(reader: ConfigReader, development: Bool) throws {
        let odds = reader.double(forKey: "guessing.maximumDailyOdds", default: development ? 0.01 : 0.0001)
        guard odds > 0, odds < 1 else {
            throw InvalidSetting(key: "guessing.maximumDailyOdds", reason: "must be between 0 and 1 (a probability)")
        }
        self.init(maximumDailyOdds: odds)
    }

    static let codeSpace = 1_000_000.0
    static let day = 86_400.0

    func capacity(acceptedCodes: Int) -> Double {
        let allowed = maximumDailyOdds * Self.codeSpace / (2 * Double(max(1, acceptedCodes)))
        return max(1, allowed.rounded(.up) - 1)
    }

    func rule(acceptedCodes: Int) -> RateLimiter.Rule {
        let capacity = capacity(acceptedCodes: acceptedCodes)
        return RateLimiter.Rule(capacity: capacity, refillPerSecond: capacity / Self.day)
    }
}
