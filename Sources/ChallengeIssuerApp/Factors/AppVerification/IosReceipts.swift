import Contracts
import Crypto
import Foundation
import JSONRPC
import Logging
import PluginKit
import PostgresNIO
import ServiceKit
import TenantStore

/// iOS app verification (contract §2.13, decision 10): `verifyIosClient` makes a receipt and a secret,
/// the secret travels only in a silent push to the device, and an SMS request must bring both back.
/// Receipts and secrets are stored as SHA-256; a receipt works once (also when its secret was wrong,
/// so secrets cannot be guessed against one receipt) and only in its own project. An iOS app belongs
/// to a project (verifyIosClient names no tenant), so receipts live in the project's schema and serve
/// the project's tenants too.
struct IosReceipts: Sendable {
    let client: Database
    let pushes: (any PushSender)?
    /// Each project's iOS bundle id (`appVerification.apns.projects`); others use the configured one.
    let bundleIDs: [String: String]
    let lifetime: Duration
    let suggestedTimeout: Int
    let limiter: RateLimiter
    let perAddress: RateLimiter.Rule
    let logger: Logger

    static let table: SQLText = "ios_receipts"

    func issue(_ params: IssueIosReceipt.Params) async throws -> IssueIosReceipt.Result {
        // A receipt proves the project's app, whichever tenant the SMS request it passes names: it is
        // kept in the project's schema, where the verifier looks, even when a tenant id came with it.
        let schema = try ScopeSchema.of(params.projectId, nil)
        guard let pushes else {
            throw RPCError(code: .deliveryFailed, message: "No APNs sender is configured (appVerification.apns.*)")
        }
        if let address = params.clientAddress, !(try await limiter.take("ios-push:\(address)", rule: perAddress)) {
            throw ChallengeRejection.tooManyAttempts
        }
        let receipt = Base64URL.random(byteCount: 32)
        let secret = Base64URL.random(byteCount: 16)
        let seconds = Double(lifetime.components.seconds)
        try await client.run(
            InsertReceipt(receiptHash: Self.hash(receipt), secretDigest: Self.digest(secret), seconds: seconds), in: schema, logger: logger
        )
        let payload: [String: Any] = [
            "aps": ["content-available": 1], "com.google.firebase.auth": ["receipt": receipt, "secret": secret],
        ]
        do {
            let body = try JSONSerialization.data(withJSONObject: payload, options: .sortedKeys)
            try await pushes.sendSilentPush(
                deviceToken: params.appToken, sandbox: params.isSandbox, topic: bundleIDs[params.projectId], payload: Array(body)
            )
        } catch let failure as DeliveryFailed {
            logger.error("silent push not delivered", metadata: ["sender": "\(pushes.name)", "reason": "\(failure.reason)"])
            throw RPCError(code: .deliveryFailed, message: "The APNs sender could not deliver the push")
        }
        return .init(receipt: receipt, suggestedTimeout: suggestedTimeout)
    }

    static func digest(_ text: String) -> [UInt8] { Array(SHA256.hash(data: Data(text.utf8))) }

    static func hash(_ text: String) -> String { digest(text).map { String(format: "%02x", $0) }.joined() }
}

/// The verifier side: `iosReceipt` + `iosSecret` of an unexpired, unused receipt of this scope.
struct IosReceiptVerifier: AppVerifier {
    let client: Database
    let logger: Logger

    var name: String { "ios-receipt" }

    func verify(_ proof: AppProof, context: AppVerificationContext) async -> AppVerdict {
        guard let receipt = proof.iosReceipt, !receipt.isEmpty else { return .notApplicable }
        guard let secret = proof.iosSecret, !secret.isEmpty, receipt.utf8.count <= 256, secret.utf8.count <= 256,
            let schema = try? ScopeSchema.of(context.projectId, nil)
        else { return .rejected(captcha: false) }
        do {
            if let stored = try await client.first(
                IosReceipts.UseReceipt(receiptHash: IosReceipts.hash(receipt)), in: schema, logger: logger)?.value
            {
                let expected = Array(stored.readableBytesView)
                let actual = IosReceipts.digest(secret)
                guard expected.count == actual.count else { return .rejected(captcha: false) }
                var difference: UInt8 = 0
                for index in expected.indices { difference |= expected[index] ^ actual[index] }
                return difference == 0 ? .verified : .rejected(captcha: false)
            }
            return .rejected(captcha: false)
        } catch {
            return .unavailable(reason: "receipt store unavailable")
        }
    }
}

extension IosReceipts {
    /// An expired or used iOS receipt is refused like an unknown one, so it goes at expiry.
    static let expiredReceipts = RetentionRule(
        "expired iOS receipts", table: Self.table, key: "receipt_hash", column: "expires_at", retention: .zero, indexed: true
    )
}
