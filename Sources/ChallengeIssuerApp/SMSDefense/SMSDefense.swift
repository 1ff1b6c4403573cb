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
/// destination's row, so concurrent sends to one country are counted exactly, across instances
/// (what is counted, and where: ``SMSDefenseRepository``). Spend across different destinations is
/// summed without a lock, so concurrent sends can pass a cap by the sends in flight.
struct SMSDefense: Sendable {
    let repository: SMSDefenseRepository
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
        let (repository, logger) = (repository, logger)
        let outcome: (SMSAdmission.Refusal?, SMSAdmission.Counts) = try await repository.client.withTransaction(logger: logger) {
            connection in
            let counts = try await repository.counts(region: region, prefix: prefix, in: send.scope, on: connection)
            let refusal = SMSAdmission.decide(counts, limits: limits, cost: cost, enrolledFactor: send.enrolledFactor)
            switch refusal {
            case nil:
                try await repository.recordSend(
                    region: region, prefix: prefix, segments: send.segments, cost: cost, sessionKey: send.sessionKey, in: send.scope,
                    on: connection)
            case .anomaly?:
                try await repository.pause(region: region, in: send.scope, on: connection)
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
        for region in try await repository.markVerified(sessionKey: sessionKey, in: scope, on: connection) {
            alerts.verified(region: region)
        }
    }

    func status(_ scope: TenantScope) async throws -> GetSMSDefenseStatus.Result {
        let schema = try ScopeSchema.of(scope.projectId, scope.tenantId)
        let paused = try await repository.pausedRegions(in: schema)
        let today = try await repository.today(in: schema)
        let month = try await repository.spendThisMonth(in: schema)
        return .init(
            pausedRegions: paused, today: today, spendTodayUsd: today.reduce(0) { $0 + $1.spendUsd },
            spendThisMonthUsd: Double(month) / 1_000_000
        )
    }

    func resume(_ params: ResumeSMSRegion.Params) async throws -> ResumeSMSRegion.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let resumed = try await repository.resume(region: params.region.uppercased(), in: schema)
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
}
