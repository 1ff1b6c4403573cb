import Testing

@testable import ChallengeIssuerApp

/// The daily guessing budgets (docs/security.md): how many code checks a factor may see so that
/// the odds of guessing it within any 24 hours stay below the configured bound.
@Suite("Guessing budgets")
struct GuessingBudgetTests {
    let production = GuessingBudget(maximumDailyOdds: 0.0001)

    @Test("production: TOTP at adjacentIntervals 5 gets 4 checks a day, an SMS code 49")
    func productionFigures() {
        #expect(production.capacity(acceptedCodes: 11) == 4)
        #expect(production.capacity(acceptedCodes: 1) == 49)
    }

    @Test("any 24 hours see at most twice the capacity, and that stays below the bound")
    func oddsStayBelowTheBound() {
        for accepted in [1, 3, 11, 21] {
            let worst = 2 * production.capacity(acceptedCodes: accepted) * Double(accepted) / GuessingBudget.codeSpace
            #expect(worst < production.maximumDailyOdds, "\(accepted) accepted codes: \(worst)")
        }
    }

    @Test("a window so wide that no check fits the bound still lets its owner try once")
    func neverBelowOne() {
        #expect(production.capacity(acceptedCodes: 1_000) == 1)
    }

    @Test("the budget refills its capacity over a day")
    func refillsDaily() {
        let rule = production.rule(acceptedCodes: 11)
        #expect(rule.capacity == 4)
        #expect(abs(rule.refillPerSecond * GuessingBudget.day - 4) < 1e-9)
    }
}
