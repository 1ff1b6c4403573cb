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
        let held = try await connection.first(LockRegion(region: region), in: schema, logger: logger)
        counts.paused = held?.paused ?? false
        let resumedAt = held?.resumedAt ?? .distantPast
        if let recent = try await connection.first(
            ReadRecentSends(region: region, prefix: prefix, resumedAt: resumedAt), in: schema, logger: logger)
        {
            (counts.regionLastHour, counts.prefixLastHour, counts.regionLastHourSinceResume) =
                (recent.inRegion, recent.inPrefix, recent.sinceResume)
        }
        if let days = try await connection.first(ReadRecentDays(region: region), in: schema, logger: logger) {
            (counts.spendToday, counts.spendThisMonth, counts.regionPreviousWeek) = (days.today, days.month, Int(days.week))
        }
        return counts
    }

    /// Counts an admitted send, in its hour and its day.
    func recordSend(
        region: String, prefix: String, segments: Int, cost: Int64, sessionKey: String, in schema: TenantSchema,
        on connection: PostgresConnection
    ) async throws {
        try await connection.run(
            InsertSend(region: region, prefix: prefix, segments: segments, cost: cost, sessionKey: sessionKey), in: schema,
            logger: logger)
        try await connection.run(CountSendInDay(region: region, cost: cost), in: schema, logger: logger)
    }

    /// The anomaly brake pauses the destination until an operator resumes it.
    func pause(region: String, in schema: TenantSchema, on connection: PostgresConnection) async throws {
        try await connection.run(PauseRegion(region: region), in: schema, logger: logger)
    }

    /// Marks the send of `sessionKey` verified, once, and counts it in its day; the regions counted.
    func markVerified(sessionKey: String, in schema: TenantSchema, on connection: PostgresConnection) async throws -> [String] {
        try await connection.run(MarkVerified(sessionKey: sessionKey), in: schema, logger: logger).map(\.value)
    }

    func pausedRegions(in schema: TenantSchema) async throws -> [GetSMSDefenseStatus.PausedRegion] {
        try await client.run(ReadPausedRegions(), in: schema, logger: logger).map {
            .init(region: $0.region, pausedAt: $0.pausedAt.formatted(.iso8601), reason: $0.reason)
        }
    }

    /// Today's sends per destination, the busiest first.
    func today(in schema: TenantSchema) async throws -> [GetSMSDefenseStatus.RegionDay] {
        try await client.run(ReadToday(), in: schema, logger: logger).map {
            .init(region: $0.region, sends: $0.sends, verified: $0.verified, spendUsd: Double($0.cost) / 1_000_000)
        }
    }

    /// This UTC month's spend, in millionths of a US dollar.
    func spendThisMonth(in schema: TenantSchema) async throws -> Int64 {
        try await client.first(ReadMonthSpend(), in: schema, logger: logger)?.value ?? 0
    }

    /// Lifts a pause; `false` when the destination was not paused.
    func resume(region: String, in schema: TenantSchema) async throws -> Bool {
        try await client.first(ResumeRegion(region: region), in: schema, logger: logger) != nil
    }
}
