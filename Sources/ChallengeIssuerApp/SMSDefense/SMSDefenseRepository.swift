import Contracts
import Foundation
import Logging
import PostgresNIO
import TenantStore

/// The SMS defence's tables in each project's or tenant's schema: `sms_regions` (a row per
/// destination country, locked while a send to it is admitted, with its pause), `sms_sends` (the
/// last day's single sends: sliding hours, and which codes were verified) and `sms_daily` (each UTC
/// day's sends, verified codes and spend per destination). ``SMSDefense`` decides; this stores.
struct SMSDefenseRepository: Sendable {
    let client: Database
    let logger: Logger

    static let regions: SQLText = "sms_regions"
    static let sends: SQLText = "sms_sends"
    static let daily: SQLText = "sms_daily"

    static let today: SQLText = "(now() AT TIME ZONE 'UTC')::date"
    static let monthStart: SQLText = "date_trunc('month', now() AT TIME ZONE 'UTC')::date"

    /// The single sends are needed for the last hour (kept a day, for the completion ratio of codes
    /// verified late); the days of this month and the week before (kept 90 days).
    static let smsSends = RetentionRule(
        "SMS sends", table: sends, key: "id", column: "sent_at", retention: .seconds(24 * 3600), indexed: true
    )
    static let smsDays = RetentionRule(
        "SMS daily sums", table: daily, key: "day", column: "day", retention: .seconds(90 * 24 * 3600), indexed: true
    )

    /// What the admission weighs for a send to `region` (the number's `prefix`), read after locking
    /// the destination's row until `connection`'s transaction ends: sends to one country are
    /// admitted one at a time.
    func counts(region: String, prefix: String, in schema: TenantSchema, on connection: PostgresConnection) async throws
        -> SMSAdmission.Counts
    {
        var counts = SMSAdmission.Counts()
        let held = try await connection.query(
            """
            INSERT INTO \(sql: schema.qualified(Self.regions)) (region) VALUES (\(region))
            ON CONFLICT (region) DO UPDATE SET region = EXCLUDED.region
            RETURNING paused_at IS NOT NULL AS paused, coalesce(resumed_at, 'epoch'::timestamptz) AS resumed_at
            """,
            logger: logger
        )
        var resumedAt = Date.distantPast
        for try await row in held.decode(rows: RegionState.self) { (counts.paused, resumedAt) = (row.paused, row.resumedAt) }
        let recent = try await connection.query(
            """
            SELECT count(*) FILTER (WHERE region = \(region)) AS in_region, count(*) FILTER (WHERE prefix = \(prefix)) AS in_prefix,
                   count(*) FILTER (WHERE region = \(region) AND sent_at > \(resumedAt)) AS since_resume
            FROM \(sql: schema.qualified(Self.sends))
            WHERE sent_at > now() - interval '1 hour' AND (region = \(region) OR prefix = \(prefix))
            """,
            logger: logger
        )
        for try await row in recent.decode(rows: RecentSends.self) {
            (counts.regionLastHour, counts.prefixLastHour, counts.regionLastHourSinceResume) = (row.inRegion, row.inPrefix, row.sinceResume)
        }
        let days = try await connection.query(
            """
            SELECT coalesce(sum(cost_micros) FILTER (WHERE day = \(sql: Self.today)), 0)::bigint AS today,
                   coalesce(sum(cost_micros) FILTER (WHERE day >= \(sql: Self.monthStart)), 0)::bigint AS month,
                   coalesce(sum(sends) FILTER (WHERE region = \(region) AND day < \(sql: Self.today)), 0)::bigint AS week
            FROM \(sql: schema.qualified(Self.daily)) WHERE day >= least(\(sql: Self.monthStart), \(sql: Self.today) - 7)
            """,
            logger: logger
        )
        for try await row in days.decode(rows: RecentDays.self) {
            (counts.spendToday, counts.spendThisMonth, counts.regionPreviousWeek) = (row.today, row.month, Int(row.week))
        }
        return counts
    }

    /// Counts an admitted send, in its hour and its day.
    func recordSend(
        region: String, prefix: String, segments: Int, cost: Int64, sessionKey: String, in schema: TenantSchema,
        on connection: PostgresConnection
    ) async throws {
        let daily = schema.qualified(Self.daily)
        try await connection.query(
            """
            INSERT INTO \(sql: schema.qualified(Self.sends)) (region, prefix, segments, cost_micros, session_id)
            VALUES (\(region), \(prefix), \(segments), \(cost), \(sessionKey))
            """,
            logger: logger
        )
        try await connection.query(
            """
            INSERT INTO \(sql: daily) (day, region, sends, cost_micros) VALUES (\(sql: Self.today), \(region), 1, \(cost))
            ON CONFLICT (day, region) DO UPDATE
            SET sends = \(sql: daily).sends + 1, cost_micros = \(sql: daily).cost_micros + EXCLUDED.cost_micros
            """,
            logger: logger
        )
    }

    /// The anomaly brake pauses the destination until an operator resumes it.
    func pause(region: String, in schema: TenantSchema, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE \(sql: schema.qualified(Self.regions)) SET paused_at = now(), reason = 'anomaly' WHERE region = \(region)",
            logger: logger
        )
    }

    /// Marks the send of `sessionKey` verified, once, and counts it in its day; the regions counted.
    func markVerified(sessionKey: String, in schema: TenantSchema, on connection: PostgresConnection) async throws -> [String] {
        let rows = try await connection.query(
            """
            WITH sent AS (
                UPDATE \(sql: schema.qualified(Self.sends)) SET verified_at = now()
                WHERE session_id = \(sessionKey) AND verified_at IS NULL RETURNING region, (sent_at AT TIME ZONE 'UTC')::date AS day
            )
            UPDATE \(sql: schema.qualified(Self.daily)) AS daily SET verified = daily.verified + 1
            FROM sent WHERE daily.day = sent.day AND daily.region = sent.region RETURNING daily.region
            """,
            logger: logger
        )
        var regions: [String] = []
        for try await region in rows.decode(String.self) { regions.append(region) }
        return regions
    }

    func pausedRegions(in schema: TenantSchema) async throws -> [GetSMSDefenseStatus.PausedRegion] {
        let rows = try await client.query(
            """
            SELECT region, paused_at, coalesce(reason, '') AS reason FROM \(sql: schema.qualified(Self.regions))
            WHERE paused_at IS NOT NULL ORDER BY region
            """,
            logger: logger
        )
        var paused: [GetSMSDefenseStatus.PausedRegion] = []
        for try await row in rows.decode(rows: PausedRegion.self) {
            paused.append(.init(region: row.region, pausedAt: row.pausedAt.formatted(.iso8601), reason: row.reason))
        }
        return paused
    }

    /// Today's sends per destination, the busiest first.
    func today(in schema: TenantSchema) async throws -> [GetSMSDefenseStatus.RegionDay] {
        let rows = try await client.query(
            """
            SELECT region, sends, verified, cost_micros FROM \(sql: schema.qualified(Self.daily))
            WHERE day = \(sql: Self.today) ORDER BY sends DESC, region
            """,
            logger: logger
        )
        var today: [GetSMSDefenseStatus.RegionDay] = []
        for try await row in rows.decode(rows: RegionDay.self) {
            today.append(.init(region: row.region, sends: row.sends, verified: row.verified, spendUsd: Double(row.cost) / 1_000_000))
        }
        return today
    }

    /// This UTC month's spend, in millionths of a US dollar.
    func spendThisMonth(in schema: TenantSchema) async throws -> Int64 {
        let rows = try await client.query(
            """
            SELECT coalesce(sum(cost_micros), 0)::bigint FROM \(sql: schema.qualified(Self.daily))
            WHERE day >= \(sql: Self.monthStart)
            """,
            logger: logger
        )
        for try await total in rows.decode(Int64.self) { return total }
        return 0
    }

    /// Lifts a pause; `false` when the destination was not paused.
    func resume(region: String, in schema: TenantSchema) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE \(sql: schema.qualified(Self.regions)) SET paused_at = NULL, reason = NULL, resumed_at = now()
            WHERE region = \(region) AND paused_at IS NOT NULL RETURNING region
            """,
            logger: logger
        )
        for try await _ in rows.decode(String.self) { return true }
        return false
    }
}

/// A destination's pause, and when it last resumed (the epoch: never).
private struct RegionState: StatementRow {
    let paused: Bool
    let resumedAt: Date

    init(_ columns: RowColumns) throws {
        paused = try columns("paused")
        resumedAt = try columns("resumed_at")
    }
}

/// Sends of the last hour to the destination's region and prefix.
private struct RecentSends: StatementRow {
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
private struct RecentDays: StatementRow {
    let today: Int64
    let month: Int64
    let week: Int64

    init(_ columns: RowColumns) throws {
        today = try columns("today")
        month = try columns("month")
        week = try columns("week")
    }
}

/// A paused region with when and why.
private struct PausedRegion: StatementRow {
    let region: String
    let pausedAt: Date
    let reason: String

    init(_ columns: RowColumns) throws {
        region = try columns("region")
        pausedAt = try columns("paused_at")
        reason = try columns("reason")
    }
}

/// One region's day.
private struct RegionDay: StatementRow {
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
