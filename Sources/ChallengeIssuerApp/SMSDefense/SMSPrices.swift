import Foundation

/// What one SMS segment costs per destination (ISO 3166 alpha-2), in millionths of a US dollar, for
/// the spend caps. The deployment's table comes from `sms.prices.file` (deploy/sms-prices.json is the
/// shipped one: `{"defaultUsd": …, "segmentPricesUsd": {"US": …}}`); a scope's
/// `smsDefenseConfig.segmentPricesUsd` overrides single entries.
struct SMSPrices: Sendable, Hashable {
    let defaultMicros: Int64
    let byRegion: [String: Int64]

    struct File: Decodable {
        let defaultUsd: Double
        let segmentPricesUsd: [String: Double]
    }

    struct Unreadable: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "sms.prices.file \(path): \(reason)" }
    }

    init(defaultUsd: Double, segmentPricesUsd: [String: Double] = [:]) {
        defaultMicros = Self.micros(defaultUsd)
        byRegion = segmentPricesUsd.reduce(into: [:]) { $0[$1.key.uppercased()] = Self.micros($1.value) }
    }

    private init(defaultMicros: Int64, byRegion: [String: Int64]) {
        self.defaultMicros = defaultMicros
        self.byRegion = byRegion
    }

    /// The table in `path`; a file that cannot be read stops the service, naming it.
    static func load(path: String) throws -> SMSPrices {
        do {
            let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            guard file.defaultUsd >= 0, file.segmentPricesUsd.values.allSatisfy({ $0 >= 0 && $0 < 100 }) else {
                throw Unreadable(path: path, reason: "prices must be between 0 and 100 US dollars")
            }
            return SMSPrices(defaultUsd: file.defaultUsd, segmentPricesUsd: file.segmentPricesUsd)
        } catch let error as Unreadable {
            throw error
        } catch {
            throw Unreadable(path: path, reason: "not a readable price table (\(type(of: error)))")
        }
    }

    func micros(region: String) -> Int64 { byRegion[region] ?? defaultMicros }

    func overriding(_ usd: [String: Double]?) -> SMSPrices {
        guard let usd, !usd.isEmpty else { return self }
        var table = byRegion
        for (region, price) in usd { table[region.uppercased()] = Self.micros(price) }
        return SMSPrices(defaultMicros: defaultMicros, byRegion: table)
    }

    static func micros(_ usd: Double) -> Int64 { Int64((max(0, usd) * 1_000_000).rounded()) }
}
