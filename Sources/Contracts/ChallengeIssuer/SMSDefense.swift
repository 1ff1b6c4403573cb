import JSONRPC

/// `smsDefense.status`: a scope's SMS sends and spend, and the destinations its pumping defence
/// paused, for the admin API. Sends, codes verified and spend are per UTC day.
public enum GetSMSDefenseStatus: RPCMethod {
    public static let name = "smsDefense.status"
    public typealias Params = TenantScope

    public struct Result: Codable, Sendable, Hashable {
        public var pausedRegions: [PausedRegion]
        /// Today's figures per destination, most sends first.
        public var today: [RegionDay]
        public var spendTodayUsd: Double
        public var spendThisMonthUsd: Double

        public init(pausedRegions: [PausedRegion], today: [RegionDay], spendTodayUsd: Double, spendThisMonthUsd: Double) {
            self.pausedRegions = pausedRegions
            self.today = today
            self.spendTodayUsd = spendTodayUsd
            self.spendThisMonthUsd = spendThisMonthUsd
        }
    }

    public struct PausedRegion: Codable, Sendable, Hashable {
        /// ISO 3166 alpha-2, or `ZZ` for numbers of no known region.
        public var region: String
        /// RFC 3339.
        public var pausedAt: String
        public var reason: String

        public init(region: String, pausedAt: String, reason: String) {
            self.region = region
            self.pausedAt = pausedAt
            self.reason = reason
        }
    }

    public struct RegionDay: Codable, Sendable, Hashable {
        public var region: String
        public var sends: Int
        /// Codes of those sends that were verified: a falling share is the mark of pumping.
        public var verified: Int
        public var spendUsd: Double

        public init(region: String, sends: Int, verified: Int, spendUsd: Double) {
            self.region = region
            self.sends = sends
            self.verified = verified
            self.spendUsd = spendUsd
        }
    }
}

/// `smsDefense.resume`: an operator lets SMS go to a destination the defence paused. Answers
/// whether it was paused.
public enum ResumeSMSRegion: RPCMethod {
    public static let name = "smsDefense.resume"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var region: String

        public init(projectId: String, tenantId: String? = nil, region: String) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.region = region
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var wasPaused: Bool

        public init(wasPaused: Bool) { self.wasPaused = wasPaused }
    }
}
