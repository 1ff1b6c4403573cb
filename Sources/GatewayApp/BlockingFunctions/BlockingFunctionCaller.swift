import AsyncHTTPClient
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import PluginHTTP
import Prometheus
import ServiceKit

/// Calls one blocking function as Identity Platform does: `POST {"data": {"jwt": …}}` with the
/// event token session-token signs, an answer within 7 seconds, the function's own error passed to
/// the client as `BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Cloud Function returned an error: {…}`.
/// Every call is audited (`blockingFunction.called`) and metered:
/// `mfa_blocking_function_calls_total{event, outcome}` and
/// `mfa_blocking_function_duration_seconds{event}`.
struct BlockingFunctionCaller: Sendable {
    let sessions: PeerClient<SessionTokenAPI>
    let call: OutsideCall
    let addresses: FunctionAddressPolicy
    /// Production: an `http://` function is never called, whatever was stored.
    let requiresHTTPS: Bool
    let registry: PrometheusCollectorRegistry
    let logger: Logger

    static let deadline: Duration = .seconds(7)

    enum Outcome: String { case allowed, blocked, failed }

    static var calls: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "blocking_function", metricName: "calls", unitName: "total",
            helpText: "Blocking function calls, by event and outcome (allowed, blocked, failed)"
        )
    }
    static var duration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "mfa", subsystem: "blocking_function", metricName: "duration", unitName: "seconds",
            helpText: "Time from the event's signing to the function's answer"
        )
    }

    /// The function's answer (a JSON object), or the client's error.
    func invoke(_ event: BlockingEvent, trigger: BlockingFunctionsConfig.Trigger, requestID: String) async throws
        -> BlockingFunctionAnswer
    {
        let started = ContinuousClock.now
        let (outcome, result) = await Result.capturing { try await exchange(event, uri: trigger.functionUri, requestID: requestID) }
            .outcome
        let elapsed = ContinuousClock.now - started
        registry.makeCounter(descriptor: Self.calls, labels: [("event", event.event.rawValue), ("outcome", outcome.rawValue)])
            .increment()
        registry.makeDurationHistogram(
            descriptor: Self.duration, labels: [("event", event.event.rawValue)], buckets: ServiceMetrics.latencyBuckets
        ).record(elapsed)
        do {
            _ = try await PeerCall.call(
                sessions, RecordBlockingEvent.self,
                .init(
                    projectId: event.projectId, tenantId: event.tenantId, localId: event.localId, event: event.event.rawValue,
                    function: Self.withoutQuery(trigger.functionUri), outcome: outcome.rawValue,
                    durationMs: elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
                ),
                requestID: requestID
            )
        } catch {
            logger.warning("blocking function call not audited", metadata: ["error": "\(error)", "event": "\(event.event.rawValue)"])
        }
        return try result.get()
    }

    private func exchange(_ event: BlockingEvent, uri: String, requestID: String) async throws -> BlockingFunctionAnswer {
        guard let url = URLComponents(string: uri), let host = url.host, let scheme = url.scheme?.lowercased(),
            scheme == "https" || (scheme == "http" && !requiresHTTPS)
        else { throw Self.failure("HTTP Cloud Function URL is not allowed (https in production)") }
        do {
            try await addresses.check(host: host)
        } catch let refused as FunctionAddressPolicy.Refused {
            throw Self.failure("HTTP Cloud Function URL is not allowed: \(refused.description)")
        }
        let token = try await PeerCall.call(
            sessions, SignBlockingEvent.self,
            .init(projectId: event.projectId, audience: uri, subject: event.localId, claims: event.claims), requestID: requestID
        )
        let body = try JSONCoding.encode(JSONValue.object(["data": ["jwt": .string(token.jwt)]]))
        let answer: OutsideCall.Answer
        do {
            answer = try await call.post(uri, headers: [("content-type", "application/json")], body: Array(body))
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw Self.failure("HTTP Cloud Function did not answer within 7 seconds")
        } catch {
            logger.warning("blocking function unreachable", metadata: ["function": "\(Self.withoutQuery(uri))", "error": "\(error)"])
            throw Self.failure("HTTP Cloud Function could not be reached")
        }
        guard answer.status == 200 else { throw Self.refusal(answer) }
        guard let parsed = try? JSONCoding.parse(answer.body) else {
            throw Self.failure("HTTP Cloud Function returned an answer that is not JSON")
        }
        let decoded: BlockingFunctionAnswer
        do {
            decoded = try BlockingFunctionAnswer(parsed, event: event.event)
        } catch {
            throw Blocked(error: IdentityToolkitError(error.error, detail: error.detail))
        }
        if decoded.blocks { throw Blocked(error: Self.blockedByOverride) }
        return decoded
    }

    /// A refusal the function chose (an answer with its own error): outcome `blocked`.
    struct Blocked: Error { let error: IdentityToolkitError }

    static let blockedByOverride = IdentityToolkitError(
        .blockingFunctionErrorResponse, detail: "HTTP Cloud Function returned recaptchaActionOverride BLOCK"
    )

    /// No usable answer (unreachable, too slow, not JSON, not allowed): outcome `failed`.
    static func failure(_ detail: String) -> IdentityToolkitError {
        IdentityToolkitError(.blockingFunctionErrorResponse, detail: detail)
    }

    /// A non-200 answer reaches the client as Identity Platform passes it: the function's `error`
    /// object (its `status` and `message`, re-encoded and bounded, never raw bytes).
    static func refusal(_ answer: OutsideCall.Answer) -> any Error {
        guard case .object(let members)? = try? JSONCoding.parse(answer.body), case .object(let error)? = members["error"] else {
            let failed = failure("HTTP Cloud Function returned HTTP \(answer.status)")
            return answer.status >= 500 ? failed : Blocked(error: failed)
        }
        var passed: [String: JSONValue] = [:]
        if let status = error["status"]?.stringValue { passed["status"] = .string(String(status.prefix(64))) }
        if let message = error["message"]?.stringValue { passed["message"] = .string(String(message.prefix(1000))) }
        let text =
            (try? JSONCoding.encode(JSONValue.object(["error": .object(passed)]))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let refused = IdentityToolkitError(.blockingFunctionErrorResponse, detail: "HTTP Cloud Function returned an error: \(text)")
        return answer.status >= 500 ? refused : Blocked(error: refused)
    }

    static func withoutQuery(_ uri: String) -> String {
        guard var components = URLComponents(string: uri) else { return "" }
        components.query = nil
        components.fragment = nil
        return components.string ?? ""
    }
}

extension Result where Failure == any Error {
    /// The call's audit outcome, and what the caller answers (a refusal's own error).
    fileprivate var outcome: (BlockingFunctionCaller.Outcome, Result<Success, any Error>) {
        switch self {
        case .success: return (.allowed, self)
        case .failure(let blocked as BlockingFunctionCaller.Blocked): return (.blocked, .failure(blocked.error))
        case .failure(let error): return (.failed, .failure(error))
        }
    }
}
