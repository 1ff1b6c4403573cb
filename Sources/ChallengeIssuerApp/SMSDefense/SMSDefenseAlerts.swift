import AsyncHTTPClient
import Foundation
import Logging
import PluginHTTP
import Prometheus
import ServiceKit

/// What the defence tells operators: Prometheus counters per destination (sends, verified codes,
/// refusals by reason: `verified / sends` is the completion ratio, whose fall is the mark of
/// pumping), a warning in the log, and for a paused destination an optional webhook
/// (`sms.defense.webhookUrl`). Labels are bounded: a region (about 250) and a reason, never a
/// project, a number or a prefix.
final class SMSDefenseAlerts: Sendable {
    let registry: PrometheusCollectorRegistry
    let webhook: (url: String, client: HTTPClient)?
    let logger: Logger
    let counters: LabeledCounters

    init(registry: PrometheusCollectorRegistry, webhook: (url: String, client: HTTPClient)?, logger: Logger) {
        self.registry = registry
        counters = LabeledCounters(registry: registry)
        self.webhook = webhook
        self.logger = logger
    }

    // Computed: the descriptor type is not Sendable (ServiceMetrics does the same).
    static var sends: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "sms", metricName: "sends", unitName: "total", helpText: "SMS sent to real numbers, by destination"
        )
    }
    static var verified: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "sms", metricName: "verified", unitName: "total",
            helpText: "Codes of counted SMS that were verified, by destination (verified / sends is the completion ratio)"
        )
    }
    static var refused: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "sms", metricName: "refused", unitName: "total",
            helpText: "SMS the pumping defence refused, by destination and reason"
        )
    }
    static var pauses: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "sms", metricName: "region_pauses", unitName: "total",
            helpText: "Destinations the anomaly brake paused"
        )
    }

    private func count(_ descriptor: MetricNameDescriptor, _ labels: [(String, String)]) {
        counters.increment(descriptor, labels)
    }

    func record(region: String, refusal: SMSAdmission.Refusal?) {
        guard let refusal else { return count(Self.sends, [("region", region)]) }
        count(Self.refused, [("region", region), ("reason", refusal.rawValue)])
        logger.warning("SMS refused by the pumping defence", metadata: ["region": "\(region)", "reason": "\(refusal.rawValue)"])
    }

    func verified(region: String) { count(Self.verified, [("region", region)]) }

    func paused(region: String, projectId: String, tenantId: String?, lastHour: Int, hourlyAverage: Double) {
        count(Self.pauses, [("region", region)])
        logger.error(
            "SMS to a region paused: sends far above its weekly average; resume it through the admin API once checked",
            metadata: [
                "project": "\(projectId)", "tenant": "\(tenantId ?? "")", "region": "\(region)", "lastHour": "\(lastHour)",
                "hourlyAverage": "\(hourlyAverage)",
            ]
        )
        guard let webhook else { return }
        var event: [String: Any] = [
            "event": "sms.region.paused", "projectId": projectId, "region": region, "sendsLastHour": lastHour,
            "hourlyAverageLastWeek": hourlyAverage, "at": Date().formatted(.iso8601),
        ]
        if let tenantId { event["tenantId"] = tenantId }
        let body = (try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys])).map(Array.init) ?? []
        let logger = logger
        // The operator hears of it without the refused client waiting on the webhook.
        Task {
            do {
                let answer = try await OutsideCall(client: webhook.client, timeout: .seconds(5)).post(
                    webhook.url, headers: [("content-type", "application/json")], body: body
                )
                if !(200..<300).contains(answer.status) {
                    logger.error("SMS defence webhook refused the event", metadata: ["status": "\(answer.status)"])
                }
            } catch {
                logger.error("SMS defence webhook unreachable", metadata: ["error": "\(type(of: error))"])
            }
        }
    }
}
