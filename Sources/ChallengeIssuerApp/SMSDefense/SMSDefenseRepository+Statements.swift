import Foundation
import TenantStore

/// The statements of ``SMSDefenseRepository``, each a type: its values, its text in a schema, its
/// row. They run unprepared, as they always have.
extension SMSDefenseRepository {
    // MARK: Admitting a send

    /// The destination's row, created the first time and locked until the transaction ends: sends
    /// to one country are admitted one at a time.
    struct LockRegion: Statement {
        typealias Row = RegionState
        static var isCached: Bool { false }
        let region: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(SMSDefenseRepository.regions)) (region) VALUES (\(region))
            ON CONFLICT (region) DO UPDATE SET region = EXCLUDED.region
            RETURNING paused_at IS NOT NULL AS paused, coalesce(resumed_at, 'epoch'::timestamptz) AS resumed_at
            """
        }
    }

    /// A destination's pause, and when it last resumed (the epoch: never).
    struct RegionState: StatementRow {
        let paused: Bool
        let resumedAt: Date

        init(_ columns: RowColumns) throws {
            paused = try columns("paused")
            resumedAt = try columns("resumed_at")
        }
    }

    /// Sends of the last hour to the destination's region and prefix, and to the region since it resumed.
    struct ReadRecentSends: Statement {
        typealias Row = RecentSends
        static var isCached: Bool { false }
        let region: String
        let prefix: String
        let resumedAt: Date

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT count(*) FILTER (WHERE region = \(region)) AS in_region, count(*) FILTER (WHERE prefix = \(prefix)) AS in_prefix,
                   count(*) FILTER (WHERE region = \(region) AND sent_at > \(resumedAt)) AS since_resume
            FROM \(sql: schema.qualified(SMSDefenseRepository.sends))
            WHERE sent_at > now() - interval '1 hour' AND (region = \(region) OR prefix = \(prefix))
            """
        }
    }

    /// Sends of the last hour to the destination's region and prefix.
    struct RecentSends: StatementRow {
        let inRegion: Int
        let inPrefix: Int
        let sinceResume: Int

        init(_ columns: RowColumns) throws {
            inRegion = try columns("in_region")
            inPrefix = try columns("in_prefix")
            sinceResume = try columns("since_resume")
        }
    }

    /// Spend today and this month, and the region's sends of the previous week.
    struct ReadRecentDays: Statement {
        typealias Row = RecentDays
        static var isCached: Bool { false }
        let region: String

        func query(in schema: TenantSchema) -> CachedQuery {
            let (today, monthStart) = (SMSDefenseRepository.today, SMSDefenseRepository.monthStart)
            return """
                SELECT coalesce(sum(cost_micros) FILTER (WHERE day = \(sql: today)), 0)::bigint AS today,
                       coalesce(sum(cost_micros) FILTER (WHERE day >= \(sql: monthStart)), 0)::bigint AS month,
                       coalesce(sum(sends) FILTER (WHERE region = \(region) AND day < \(sql: today)), 0)::bigint AS week
                FROM \(sql: schema.qualified(SMSDefenseRepository.daily)) WHERE day >= least(\(sql: monthStart), \(sql: today) - 7)
                """
        }
    }

    /// Spend today and this month, and the region's sends of the previous week.
    struct RecentDays: StatementRow {
        let today: Int64
        let month: Int64
        let week: Int64

        init(_ columns: RowColumns) throws {
            today = try columns("today")
            month = try columns("month")
            week = try columns("week")
        }
    }

    /// An admitted send, in its hour.
    struct InsertSend: Statement {
        static var isCached: Bool { false }
        let region: String
        let prefix: String
        let segments: Int
        let cost: Int64
        let sessionKey: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(SMSDefenseRepository.sends)) (region, prefix, segments, cost_micros, session_id)
            VALUES (\(region), \(prefix), \(segments), \(cost), \(sessionKey))
            """
        }
    }

    /// An admitted send, in its day.
    struct CountSendInDay: Statement {
        static var isCached: Bool { false }
        let region: String
        let cost: Int64

        func query(in schema: TenantSchema) -> CachedQuery {
            let daily = schema.qualified(SMSDefenseRepository.daily)
            return """
                INSERT INTO \(sql: daily) (day, region, sends, cost_micros) VALUES (\(sql: SMSDefenseRepository.today), \(region), 1, \(cost))
                ON CONFLICT (day, region) DO UPDATE
                SET sends = \(sql: daily).sends + 1, cost_micros = \(sql: daily).cost_micros + EXCLUDED.cost_micros
                """
        }
    }

    /// The anomaly brake: the destination paused until an operator resumes it.
    struct PauseRegion: Statement {
        static var isCached: Bool { false }
        let region: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "UPDATE \(sql: schema.qualified(SMSDefenseRepository.regions)) SET paused_at = now(), reason = 'anomaly' WHERE region = \(region)"
        }
    }

    /// The send of `sessionKey` marked verified, once, and counted in its day; a row per region counted.
    struct MarkVerified: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let sessionKey: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            WITH sent AS (
                UPDATE \(sql: schema.qualified(SMSDefenseRepository.sends)) SET verified_at = now()
                WHERE session_id = \(sessionKey) AND verified_at IS NULL RETURNING region, (sent_at AT TIME ZONE 'UTC')::date AS day
            )
            UPDATE \(sql: schema.qualified(SMSDefenseRepository.daily)) AS daily SET verified = daily.verified + 1
            FROM sent WHERE daily.day = sent.day AND daily.region = sent.region RETURNING daily.region
            """
        }
    }

    // MARK: What operators see and do

    /// The paused destinations, by region.
    struct ReadPausedRegions: Statement {
        typealias Row = PausedRegion
        static var isCached: Bool { false }

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT region, paused_at, coalesce(reason, '') AS reason FROM \(sql: schema.qualified(SMSDefenseRepository.regions))
            WHERE paused_at IS NOT NULL ORDER BY region
            """
        }
    }

    /// A paused region with when and why.
    struct PausedRegion: StatementRow {
        let region: String
        let pausedAt: Date
        let reason: String

        init(_ columns: RowColumns) throws {
            region = try columns("region")
            pausedAt = try columns("paused_at")
            reason = try columns("reason")
        }
    }

    /// Today's sends per destination, the busiest first.
    struct ReadToday: Statement {
        typealias Row = RegionDay
        static var isCached: Bool { false }

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT region, sends, verified, cost_micros FROM \(sql: schema.qualified(SMSDefenseRepository.daily))
            WHERE day = \(sql: SMSDefenseRepository.today) ORDER BY sends DESC, region
            """
        }
    }

    /// One region's day.
    struct RegionDay: StatementRow {
        let region: String
        let sends: Int
        let verified: Int
        let cost: Int64

        init(_ columns: RowColumns) throws {
            region = try columns("region")
            sends = try columns("sends")
            verified = try columns("verified")
            cost = try columns("cost_micros")
        }
    }

    /// This UTC month's spend, in millionths of a US dollar.
    struct ReadMonthSpend: Statement {
        typealias Row = SingleValue<Int64>
        static var isCached: Bool { false }

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT coalesce(sum(cost_micros), 0)::bigint FROM \(sql: schema.qualified(SMSDefenseRepository.daily))
            WHERE day >= \(sql: SMSDefenseRepository.monthStart)
            """
        }
    }

    /// A pause lifted; no row when the destination was not paused.
    struct ResumeRegion: Statement {
        typealias Row = SingleValue<String>
        static var isCached: Bool { false }
        let region: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            UPDATE \(sql: schema.qualified(SMSDefenseRepository.regions)) SET paused_at = NULL, reason = NULL, resumed_at = now()
            WHERE region = \(region) AND paused_at IS NOT NULL RETURNING region
            """
        }
    }
}
