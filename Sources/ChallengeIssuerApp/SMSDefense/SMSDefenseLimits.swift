import Configuration
import Contracts

/// The limits one SMS send is held to: the scope's `smsDefenseConfig` over the deployment's
/// `sms.defense.*` defaults. Production's defaults stop a bot early; development's are out of the way
/// (a test that wants the defence sets it per tenant).
struct SMSDefenseLimits: Sendable, Hashable {
    var countryHourlyLimit: Int
    var prefixHourlyLimit: Int
    var dailySpendCapMicros: Int64?
    var monthlySpendCapMicros: Int64?
    var prices: SMSPrices
    var anomalyFactor: Double
    var anomalyMinimumHourlySends: Int

    init(
        countryHourlyLimit: Int, prefixHourlyLimit: Int, dailySpendCapMicros: Int64? = nil, monthlySpendCapMicros: Int64? = nil,
        prices: SMSPrices, anomalyFactor: Double, anomalyMinimumHourlySends: Int
    ) {
        self.countryHourlyLimit = countryHourlyLimit
        self.prefixHourlyLimit = prefixHourlyLimit
        self.dailySpendCapMicros = dailySpendCapMicros
        self.monthlySpendCapMicros = monthlySpendCapMicros
        self.prices = prices
        self.anomalyFactor = anomalyFactor
        self.anomalyMinimumHourlySends = anomalyMinimumHourlySends
    }

    /// The deployment's defaults (read once at start-up).
    init(_ reader: ConfigReader, development: Bool, prices: SMSPrices) {
        let loose = 1_000_000
        self.init(
            countryHourlyLimit: reader.int(forKey: "sms.defense.countryHourlyLimit", default: development ? loose : 500),
            prefixHourlyLimit: reader.int(forKey: "sms.defense.prefixHourlyLimit", default: development ? loose : 20),
            dailySpendCapMicros: reader.double(forKey: "sms.defense.dailySpendCapUsd").map(SMSPrices.micros),
            monthlySpendCapMicros: reader.double(forKey: "sms.defense.monthlySpendCapUsd").map(SMSPrices.micros),
            prices: prices, anomalyFactor: reader.double(forKey: "sms.defense.anomalyFactor", default: 10),
            anomalyMinimumHourlySends: reader.int(forKey: "sms.defense.anomalyMinimumHourlySends", default: development ? loose : 50)
        )
    }

    /// These defaults with the scope's own settings over them.
    func applying(_ config: SMSDefenseConfig?) -> SMSDefenseLimits {
        guard let config else { return self }
        var limits = self
        if let value = config.countryHourlyLimit { limits.countryHourlyLimit = value }
        if let value = config.prefixHourlyLimit { limits.prefixHourlyLimit = value }
        if let value = config.dailySpendCapUsd { limits.dailySpendCapMicros = SMSPrices.micros(value) }
        if let value = config.monthlySpendCapUsd { limits.monthlySpendCapMicros = SMSPrices.micros(value) }
        limits.prices = prices.overriding(config.segmentPricesUsd)
        if let value = config.anomalyFactor { limits.anomalyFactor = value }
        if let value = config.anomalyMinimumHourlySends { limits.anomalyMinimumHourlySends = value }
        return limits
    }
}
