/// Whether one more SMS may go to a destination, from what the defence knows of it when the send is
/// asked for. Checked in this order, so the cheapest explanation is the one counted: a paused
/// destination, the prefix's and the country's sliding hour, the spend caps, then the anomaly
/// brake, which pauses the destination until an operator resumes it.
enum SMSAdmission {
    struct Counts: Sendable, Hashable {
        var paused = false
        /// Sends in the last hour to the destination country, and to the number's prefix.
        var regionLastHour = 0
        var prefixLastHour = 0
        /// Sends to the country in the last hour since an operator last resumed it: what the
        /// anomaly brake weighs, so that a resumed destination is not paused again at once.
        var regionLastHourSinceResume = 0
        /// Sends to the destination in the seven UTC days before today.
        var regionPreviousWeek = 0
        /// Spend in millionths of a US dollar, this UTC day and this UTC month.
        var spendToday: Int64 = 0
        var spendThisMonth: Int64 = 0
    }

    enum Refusal: String, Sendable, CaseIterable {
        case paused
        case prefixVelocity = "prefix_velocity"
        case countryVelocity = "country_velocity"
        case dailySpendCap = "daily_spend_cap"
        case monthlySpendCap = "monthly_spend_cap"
        /// The anomaly brake: this refusal also pauses the destination.
        case anomaly
    }

    /// `enrolledFactor`: a code to the number an account enrolled as its second factor, which
    /// strangers' sends must not be able to deny: a pause, the prefix's hour and the brake do not
    /// apply to it (the country's hour and the spend caps do).
    static func decide(_ counts: Counts, limits: SMSDefenseLimits, cost: Int64, enrolledFactor: Bool = false) -> Refusal? {
        if counts.paused, !enrolledFactor { return .paused }
        if counts.prefixLastHour >= limits.prefixHourlyLimit, !enrolledFactor { return .prefixVelocity }
        if counts.regionLastHour >= limits.countryHourlyLimit { return .countryVelocity }
        if let cap = limits.dailySpendCapMicros, counts.spendToday + cost > cap { return .dailySpendCap }
        if let cap = limits.monthlySpendCapMicros, counts.spendThisMonth + cost > cap { return .monthlySpendCap }
        if enrolledFactor { return nil }
        let thisHour = counts.regionLastHourSinceResume + 1
        let hourlyAverage = Double(counts.regionPreviousWeek) / (7 * 24)
        if thisHour >= limits.anomalyMinimumHourlySends, Double(thisHour) > limits.anomalyFactor * hourlyAverage { return .anomaly }
        return nil
    }
}
