import AuthVocabulary
import Contracts
import Foundation
import JSONRPC
import ServiceKit
import TenantStore

/// `blockingEvent.sign` and `blockingEvent.record`: the event token a blocking function receives,
/// signed with the ID tokens' key under their issuer, so the Firebase Functions SDKs check it
/// against the same published keys (docs/blocking-functions.md); and the call's audit entry.
struct BlockingEventSigner: Sendable {
    let issuer: IDTokenIssuer
    let events: SecurityEventLog
    /// How long the token is good for: a function answers within 7 seconds; the rest is clock skew.
    static let lifetime: Int64 = 300
    /// The claims session-token sets itself, whatever the gateway sent.
    static let registered: Set<String> = ["iss", "aud", "sub", "iat", "exp", "nbf", "jti"]

    func sign(_ params: SignBlockingEvent.Params, now: Date = Date()) throws -> SignBlockingEvent.Result {
        let issuedAt = EpochSeconds(now)
        var claims = params.claims.filter { !Self.registered.contains($0.key) }
        claims["iss"] = .string(issuer.issuerBase + params.projectId)
        claims["aud"] = .string(params.audience)
        if let subject = params.subject { claims["sub"] = .string(subject) }
        claims["iat"] = .int(issuedAt.rawValue)
        claims["exp"] = .int((issuedAt + Self.lifetime).rawValue)
        let json = try JSONCoding.encode(JSONValue.object(claims))
        return .init(jwt: try issuer.sign(payload: Array(Base64URL.encode(json).utf8)))
    }

    func record(_ params: RecordBlockingEvent.Params) async throws -> RecordBlockingEvent.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        try await events.record(
            .blockingFunctionCalled, localId: params.localId,
            details: [
                "event": params.event, "function": params.function, "outcome": params.outcome, "durationMs": String(params.durationMs),
            ],
            in: schema
        )
        return .init()
    }
}
