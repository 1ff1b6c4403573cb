import Contracts
import Testing

@testable import ChallengeIssuerApp

/// The SMS pumping defence's decision for one send (the SQL that gathers the counts is exercised by
/// client-tests/test_sms_defense.py against PostgreSQL).
@Suite("SMS admission")
struct SMSAdmissionTests {
    let limits = SMSDefenseLimits(
        countryHourlyLimit: 100, prefixHourlyLimit: 5, dailySpendCapMicros: 10_000_000, monthlySpendCapMicros: 200_000_000,
        prices: SMSPrices(defaultUsd: 0.05, segmentPricesUsd: ["ID": 0.3]), anomalyFactor: 10, anomalyMinimumHourlySends: 20
    )

    func decide(_ counts: SMSAdmission.Counts, cost: Int64 = 50_000) -> SMSAdmission.Refusal? {
        SMSAdmission.decide(counts, limits: limits, cost: cost)
    }

    @Test("a quiet destination with a week of traffic is admitted")
    func admitted() {
        #expect(decide(.init(regionLastHour: 10, prefixLastHour: 1, regionPreviousWeek: 7 * 24 * 5)) == nil)
    }

    @Test("checks in order: paused, the prefix's hour, the country's hour, the day's then the month's spend, the anomaly")
    func order() {
        let everything = SMSAdmission.Counts(
            paused: true, regionLastHour: 100, prefixLastHour: 5, spendToday: 10_000_000, spendThisMonth: 200_000_000
        )
        var counts = everything
        #expect(decide(counts) == .paused)
        counts.paused = false
        #expect(decide(counts) == .prefixVelocity)
        counts.prefixLastHour = 4
        #expect(decide(counts) == .countryVelocity)
        counts.regionLastHour = 19
        counts.regionLastHourSinceResume = 19
        #expect(decide(counts) == .dailySpendCap)
        counts.spendToday = 9_950_000
        #expect(decide(counts) == .monthlySpendCap)
        counts.spendThisMonth = 0
        #expect(decide(counts) == .anomaly)
        counts.regionPreviousWeek = 7 * 24 * 2
        #expect(decide(counts) == nil)
    }

    @Test("a code to an enrolled factor passes a pause, the prefix's hour and the brake, but not the country's hour or a cap")
    func enrolledFactor() {
        let denied = SMSAdmission.Counts(paused: true, regionLastHour: 19, prefixLastHour: 5, regionLastHourSinceResume: 19)
        #expect(decide(denied) == .paused)
        #expect(SMSAdmission.decide(denied, limits: limits, cost: 50_000, enrolledFactor: true) == nil)
        var capped = denied
        capped.spendToday = 10_000_000
        #expect(SMSAdmission.decide(capped, limits: limits, cost: 50_000, enrolledFactor: true) == .dailySpendCap)
        capped.regionLastHour = 100
        #expect(SMSAdmission.decide(capped, limits: limits, cost: 50_000, enrolledFactor: true) == .countryVelocity)
    }

    @Test("a cap is reached when the send would pass it, not after")
    func capsCountTheSend() {
        #expect(decide(.init(regionPreviousWeek: 10_000, spendToday: 9_950_000)) == nil)
        #expect(decide(.init(regionPreviousWeek: 10_000, spendToday: 9_950_001)) == .dailySpendCap)
    }

    @Test("the anomaly brake needs both the minimum hourly sends and the factor over the weekly hourly average")
    func anomaly() {
        // No history: the minimum alone decides.
        #expect(decide(.init(regionLastHourSinceResume: 18)) == nil)
        #expect(decide(.init(regionLastHourSinceResume: 19)) == .anomaly)
        // 168 sends a week is 1 an hour: 10 times that is passed by the 20th send.
        #expect(decide(.init(regionLastHourSinceResume: 19, regionPreviousWeek: 168)) == .anomaly)
        #expect(decide(.init(regionLastHourSinceResume: 19, regionPreviousWeek: 168 * 2)) == nil)
        // Resumed by an operator: the sends before that no longer count toward a pause.
        #expect(decide(.init(regionLastHour: 40, regionLastHourSinceResume: 0)) == nil)
    }

    @Test("a scope's settings override the deployment's, price by price")
    func scopeOverrides() {
        let scoped = limits.applying(SMSDefenseConfig(prefixHourlyLimit: 50, dailySpendCapUsd: 1, segmentPricesUsd: ["us": 0.01]))
        #expect(scoped.prefixHourlyLimit == 50 && scoped.countryHourlyLimit == 100)
        #expect(scoped.dailySpendCapMicros == 1_000_000)
        #expect(scoped.prices.micros(region: "US") == 10_000 && scoped.prices.micros(region: "ID") == 300_000)
        #expect(scoped.prices.micros(region: "FR") == 50_000)
    }

    @Test("a number's prefix is its calling code and the next six digits")
    func prefixes() {
        #expect(CallingCodes.prefix(of: "+16505551234") == "+1650555")
        #expect(CallingCodes.prefix(of: "+6281234567890") == "+62812345")
        #expect(CallingCodes.prefix(of: "+3725123456") == "+372512345")
        #expect(CallingCodes.prefix(of: "not a number") == nil)
    }
}
