import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Challenge-issuer's defence against SMS pumping, per project or tenant schema: every send to a real
/// number (test numbers never count) is admitted by ``SMSAdmission`` in a transaction that holds the
/// destination's row, so concurrent sends to one country are counted exactly, across instances.
/// `sms_sends` keeps the last day's sends (sliding hours, and which codes were verified);
/// `sms_daily` sums each UTC day per destination (spend caps, the anomaly brake's weekly average, the
/// completion ratio). Spend across different destinations is summed without a lock, so concurrent
/// sends can pass a cap by the sends in flight.
struct SMSDefense: Sendable {
    let client: Database
    let limits: SMSDefenseLimits
    let alerts: SMSDefenseAlerts
    /// The audit trail: each refusal (and pause) is recorded in the transaction that decides it.
    let events: SecurityEventLog
    let logger: Logger

    struct Send: Sendable {
        let scope: TenantSchema
        let projectId: String
        let tenantId: String?
        let number: String
        /// The account the code is for; empty for a phone sign-in's first step.
        let localId: String
        let segments: Int
        let sessionKey: String
        let config: SMSDefenseConfig?
        /// A second-factor sign-in's code to the number the account enrolled (proved then with a
        /// code). Strangers' sends can fill a number's prefix or pause its country; the owner's own
        /// factor must still work (issue 39, M-2), so only the country's hour and the spend caps
        /// apply to it; it is counted like any send.
        var enrolledFactor = false
    }

    /// Records the send, or throws `QUOTA_EXCEEDED` / `TOO_MANY_ATTEMPTS_TRY_LATER` and sends nothing.
    func admit(_ send: Send) async throws {
        let limits = limits.applying(send.config)
        let region = CallingCodes.region(of: send.number) ?? "ZZ"
        let prefix = CallingCodes.prefix(of: send.number) ?? "+"
        let cost = limits.prices.micros(region: region) * Int64(send.segments)
        let (regions, sends, daily) = (
            send.scope.qualified("sms_regions"), send.scope.qualified("sms_sends"), send.scope.qualified("sms_daily")
        )
        let logger = logger
        let outcome: (SMSAdmission.Refusal?, SMSAdmission.Counts) = try await client.withTransaction(logger: logger) { connection in
            var counts = SMSAdmission.Counts()
            // The destination's row, locked until commit: sends to one country are admitted one at a time.
            let held = try await connection.query(
                """
                INSERT INTO \(sql: regions) (region) VALUES (\(region))
                ON CONFLICT (region) DO UPDATE SET region = EXCLUDED.region
                RETURNING paused_at IS NOT NULL, coalesce(resumed_at, 'epoch'::timestamptz)
                """,
                logger: logger
            )
            var resumedAt = Date.distantPast
            for try await (paused, resumed) in held.decode((Bool, Date).self) { (counts.paused, resumedAt) = (paused, resumed) }
            let recent = try await connection.query(
                """
                SELECT count(*) FILTER (WHERE region = \(region)), count(*) FILTER (WHERE prefix = \(prefix)),
                       count(*) FILTER (WHERE region = \(region) AND sent_at > \(resumedAt))
                FROM \(sql: sends) WHERE sent_at > now() - interval '1 hour' AND (region = \(region) OR prefix = \(prefix))
                """,
                logger: logger
            )
            for try await (inRegion, inPrefix, sinceResume) in recent.decode((Int, Int, Int).self) {
                (counts.regionLastHour, counts.prefixLastHour, counts.regionLastHourSinceResume) = (inRegion, inPrefix, sinceResume)
            }
            let days = try await connection.query(
                """
                SELECT coalesce(sum(cost_micros) FILTER (WHERE day = \(sql: Self.today)), 0)::bigint,
                       coalesce(sum(cost_micros) FILTER (WHERE day >= \(sql: Self.monthStart)), 0)::bigint,
                       coalesce(sum(sends) FILTER (WHERE region = \(region) AND day < \(sql: Self.today)), 0)::bigint
                FROM \(sql: daily) WHERE day >= least(\(sql: Self.monthStart), \(sql: Self.today) - 7)
                """,
                logger: logger
            )
            for try await (today, month, week) in days.decode((Int64, Int64, Int64).self) {
                (counts.spendToday, counts.spendThisMonth, counts.regionPreviousWeek) = (today, month, Int(week))
            }
            let refusal = SMSAdmission.decide(counts, limits: limits, cost: cost, enrolledFactor: send.enrolledFactor)
            switch refusal {
            case nil:
                try await connection.query(
                    """
                    INSERT INTO \(sql: sends) (region, prefix, segments, cost_micros, session_id)
                    VALUES (\(region), \(prefix), \(send.segments), \(cost), \(send.sessionKey))
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
            case .anomaly?:
                try await connection.query(
                    "UPDATE \(sql: regions) SET paused_at = now(), reason = 'anomaly' WHERE region = \(region)", logger: logger
                )
            default:
                break
            }
            if let refusal {
                try await events.record(
                    .smsRefused, localId: send.localId.isEmpty ? nil : send.localId,
                    details: ["region": region, "reason": refusal.rawValue], in: send.scope, on: connection
                )
            }
            return (refusal, counts)
        }
        alerts.record(region: region, refusal: outcome.0)
        guard let refusal = outcome.0 else { return }
        if refusal == .anomaly {
            alerts.paused(
                region: region, projectId: send.projectId, tenantId: send.tenantId, lastHour: outcome.1.regionLastHourSinceResume + 1,
                hourlyAverage: Double(outcome.1.regionPreviousWeek) / (7 * 24)
            )
        }
        switch refusal {
        case .prefixVelocity, .countryVelocity: throw ChallengeRejection.tooManyAttempts
        case .paused, .dailySpendCap, .monthlySpendCap, .anomaly: throw Self.quotaExceeded
        }
    }

    static let quotaExceeded = ChallengeRejection.error(.quotaExceeded, detail: "Exceeded quota.")

    /// A code of a counted send was verified: the completion ratio's numerator.
    func verified(sessionKey: String, scope: TenantSchema, on connection: PostgresConnection) async throws {
        let rows = try await connection.query(
            """
            WITH sent AS (
                UPDATE \(sql: scope.qualified("sms_sends")) SET verified_at = now()
                WHERE session_id = \(sessionKey) AND verified_at IS NULL RETURNING region, (sent_at AT TIME ZONE 'UTC')::date AS day
            )
            UPDATE \(sql: scope.qualified("sms_daily")) AS daily SET verified = daily.verified + 1
            FROM sent WHERE daily.day = sent.day AND daily.region = sent.region RETURNING daily.region
            """,
            logger: logger
        )
        for try await region in rows.decode(String.self) { alerts.verified(region: region) }
    }

    func status(_ scope: TenantScope) async throws -> GetSMSDefenseStatus.Result {
        let schema = try ScopeSchema.of(scope.projectId, scope.tenantId)
        var paused: [GetSMSDefenseStatus.PausedRegion] = []
        let pausedRows = try await client.query(
            """
            SELECT region, paused_at, coalesce(reason, '') FROM \(sql: schema.qualified("sms_regions"))
            WHERE paused_at IS NOT NULL ORDER BY region
            """,
            logger: logger
        )
        for try await (region, at, reason) in pausedRows.decode((String, Date, String).self) {
            paused.append(.init(region: region, pausedAt: at.formatted(.iso8601), reason: reason))
        }
        var today: [GetSMSDefenseStatus.RegionDay] = []
        let dayRows = try await client.query(
            """
            SELECT region, sends, verified, cost_micros FROM \(sql: schema.qualified("sms_daily"))
            WHERE day = \(sql: Self.today) ORDER BY sends DESC, region
            """,
            logger: logger
        )
        for try await (region, sends, verified, cost) in dayRows.decode((String, Int, Int, Int64).self) {
            today.append(.init(region: region, sends: sends, verified: verified, spendUsd: Double(cost) / 1_000_000))
        }
        var month: Int64 = 0
        let monthRows = try await client.query(
            """
            SELECT coalesce(sum(cost_micros), 0)::bigint FROM \(sql: schema.qualified("sms_daily"))
            WHERE day >= \(sql: Self.monthStart)
            """,
            logger: logger
        )
        for try await total in monthRows.decode(Int64.self) { month = total }
        return .init(
            pausedRegions: paused, today: today, spendTodayUsd: today.reduce(0) { $0 + $1.spendUsd },
            spendThisMonthUsd: Double(month) / 1_000_000
        )
    }

    func resume(_ params: ResumeSMSRegion.Params) async throws -> ResumeSMSRegion.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let rows = try await client.query(
            """
            UPDATE \(sql: schema.qualified("sms_regions")) SET paused_at = NULL, reason = NULL, resumed_at = now()
            WHERE region = \(params.region.uppercased()) AND paused_at IS NOT NULL RETURNING region
            """,
            logger: logger
        )
        var resumed = false
        for try await _ in rows.decode(String.self) { resumed = true }
        if resumed {
            logger.warning(
                "SMS resumed to a paused region",
                metadata: [
                    "project": "\(params.projectId)", "tenant": "\(params.tenantId ?? "")", "region": "\(params.region.uppercased())",
                ]
            )
        }
        return .init(wasPaused: resumed)
    }

    static let today: SQLText = "(now() AT TIME ZONE 'UTC')::date"
    static let monthStart: SQLText = "date_trunc('month', now() AT TIME ZONE 'UTC')::date"
}
