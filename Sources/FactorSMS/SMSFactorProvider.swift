import Crypto
import Foundation
import PluginKit

/// SMS second factors: 6-digit codes from the system CSPRNG (leading zeros allowed), stored only as
/// SHA-256 of a per-challenge salt and the code, compared in constant time, valid until expiry and
/// only once.
public struct SMSFactorProvider: FactorProvider {
    public static let digits = 6

    public init() {}

    public var kind: String { "phone" }

    public func newChallenge(now: Date, lifetime: Duration) -> IssuedChallenge<SMSChallenge> {
        var generator = SystemRandomNumberGenerator()
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000, using: &generator))
        return issue(code: code, now: now, lifetime: lifetime)
    }

    /// A challenge for a known code: a test phone number's fixed code (no SMS is sent for those).
    public func issue(code: String, now: Date, lifetime: Duration) -> IssuedChallenge<SMSChallenge> {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return IssuedChallenge(
            challenge: SMSChallenge(
                expiresAt: now.addingTimeInterval(Double(lifetime.components.seconds)), codeHash: Self.hash(code, salt: salt),
                salt: salt
            ),
            deliverable: code
        )
    }

    public func verify(_ code: String, against challenge: SMSChallenge, now: Date) -> Verdict {
        if challenge.consumed { return .replayed }
        guard now < challenge.expiresAt else { return .expired }
        let expected = challenge.codeHash
        let actual = Self.hash(code, salt: challenge.salt)
        guard actual.count == expected.count else { return .wrongCode }
        var difference: UInt8 = 0
        for index in actual.indices { difference |= actual[index] ^ expected[index] }
        return difference == 0 ? .accepted(step: nil) : .wrongCode
    }

    static func hash(_ code: String, salt: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: salt)
        hasher.update(data: Data(code.utf8))
        return Array(hasher.finalize())
    }
}
