/// `smsDefenseConfig` of a project or a tenant: its defence against SMS pumping (bots that make us
/// text premium numbers). Every member is optional; an unset one takes the deployment's default
/// (challenge-issuer's `sms.defense.*`). Test phone numbers never count.
public struct SMSDefenseConfig: Codable, Sendable, Hashable {
    /// Sends to one destination country in any sliding hour.
    public var countryHourlyLimit: Int?
    /// Sends to one number prefix (the country code and the next six digits) in any sliding hour.
    public var prefixHourlyLimit: Int?
    /// Spend per UTC day and per UTC month, in US dollars; unset: no cap.
    public var dailySpendCapUsd: Double?
    public var monthlySpendCapUsd: Double?
    /// Price of one SMS segment per destination (ISO 3166 alpha-2), over the deployment's table.
    public var segmentPricesUsd: [String: Double]?
    /// A country whose sends in the last hour exceed this many times its hourly average of the
    /// previous seven days, and at least `anomalyMinimumHourlySends`, is paused.
    public var anomalyFactor: Double?
    public var anomalyMinimumHourlySends: Int?

    public init(
        countryHourlyLimit: Int? = nil, prefixHourlyLimit: Int? = nil, dailySpendCapUsd: Double? = nil, monthlySpendCapUsd: Double? = nil,
        segmentPricesUsd: [String: Double]? = nil, anomalyFactor: Double? = nil, anomalyMinimumHourlySends: Int? = nil
    ) {
        self.countryHourlyLimit = countryHourlyLimit
        self.prefixHourlyLimit = prefixHourlyLimit
        self.dailySpendCapUsd = dailySpendCapUsd
        self.monthlySpendCapUsd = monthlySpendCapUsd
        self.segmentPricesUsd = segmentPricesUsd
        self.anomalyFactor = anomalyFactor
        self.anomalyMinimumHourlySends = anomalyMinimumHourlySends
    }
}
