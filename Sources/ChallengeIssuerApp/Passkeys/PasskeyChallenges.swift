import Contracts
import Crypto
import Foundation
import IdentityToolkit
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// WebAuthn challenges (issue 59): 32 random bytes handed to the browser, stored as their SHA-256
/// in the scope's `passkey_challenges` with what they are for. Redeeming one deletes its row in the
/// statement that reads it, so of two redemptions at once exactly one finds it; an expired row is
/// kept past its expiry (`verification.expiredRetentionSeconds`) only to answer
/// `PASSKEY_CHALLENGE_TIMEOUT` instead of an unknown challenge's refusal.
struct PasskeyChallenges: Sendable {
    let client: Database
    let lifetime: Duration
    let limiter: RateLimiter
    /// `passkeys.rateLimit.perAddress`: challenges one client address may ask for.
    let perAddress: RateLimiter.Rule
    let logger: Logger

    static let table: SQLText = "passkey_challenges"

    func issue(_ params: IssuePasskeyChallenge.Params) async throws -> IssuePasskeyChallenge.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        if let address = params.clientAddress, !(try await limiter.take("passkey:address:\(address)", rule: perAddress)) {
            throw ChallengeRejection.tooManyAttempts
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let seconds = Int(lifetime.components.seconds)
        let expiresAt =
            try await client.first(
                InsertChallenge(
                    digest: Self.digest(bytes), purpose: params.purpose.rawValue, localId: params.localId ?? "", seconds: seconds),
                in: schema, logger: logger
            )?.value ?? ""
        return .init(challenge: Base64URL.encode(bytes), expiresAt: expiresAt, timeoutMs: seconds * 1000)
    }

    func redeem(_ params: RedeemPasskeyChallenge.Params) async throws {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        guard params.challenge.utf8.count <= 128, let bytes = Base64URL.decode(params.challenge).map(Array.init), bytes.count == 32 else {
            throw Self.refused
        }
        if let spent = try await client.first(SpendChallenge(digest: Self.digest(bytes)), in: schema, logger: logger) {
            // Another user's or another ceremony's challenge is used up all the same: it was shown once.
            guard spent.purpose == params.purpose.rawValue, spent.localId == (params.localId ?? "") else { throw Self.refused }
            guard spent.live else { throw ChallengeRejection.error(.passkeyChallengeTimeout) }
            return
        }
        throw Self.refused
    }

    static let refused = ChallengeRejection.error(.invalidAuthenticatorResponse)

    static func digest(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }
}

extension PasskeyChallenges {
    /// An expired passkey challenge answers `PASSKEY_CHALLENGE_TIMEOUT` for `retention`, then it is unknown.
    static func expiredPasskeyChallenges(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "expired passkey challenges", table: Self.table, key: "challenge_hash", column: "expires_at",
            retention: retention, indexed: true
        )
    }
}
