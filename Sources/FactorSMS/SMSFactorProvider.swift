import Crypto
import Foundation
import PluginKit

/// SMS second factors: 6-digit codes from the system CSPRNG (leading zeros allowed), stored only as
/// a hash of a per-challenge salt and the code, compared in constant time, valid until expiry and
/// only once. With a `codeKey` (the service's, derived from its master key) the hash is
/// HMAC-SHA256 under it, so a reader of the database cannot recover a live code by trying the
/// million candidates (issue 39, L-6); without one, SHA-256.
public struct SMSFactorProvider: FactorProvider {
    public static let digits = 6

    let codeKey: SymmetricKey?

    public init(codeKey: SymmetricKey? = nil) {
        self.codeKey = codeKey
    }

    public var kind: FactorKind { .phone }

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
                expiresAt: now.addingTimeInterval(Double(lifetime.components.seconds)), codeHash: hash(code, salt: salt),
                salt: salt
            ),
            deliverable: code
        )
    }

    public func verify(_ code: String, against challenge: SMSChallenge, now: Date) -> Verdict {
        if challenge.consumed { return .replayed }
        guard now < challenge.expiresAt else { return .expired }
        let expected = challenge.codeHash
        // Both forms are computed and compared, so the time taken does not say which matched. The
        // unkeyed form passes only challenges stored before the key was introduced (they live
        // minutes); a keyed hash cannot equal a plain SHA-256 of another input.
        var matched = Self.equal(hash(code, salt: challenge.salt), expected)
        if codeKey != nil { matched = Self.equal(Self.plainHash(code, salt: challenge.salt), expected) || matched }
        return matched ? .accepted(step: nil) : .wrongCode
    }

    func hash(_ code: String, salt: [UInt8]) -> [UInt8] {
        guard let codeKey else { return Self.plainHash(code, salt: salt) }
        var mac = HMAC<SHA256>(key: codeKey)
        mac.update(data: salt)
        mac.update(data: Data(code.utf8))
        return Array(mac.finalize())
    }

    static func plainHash(_ code: String, salt: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: salt)
        hasher.update(data: Data(code.utf8))
        return Array(hasher.finalize())
    }

    /// Constant time in the contents (lengths are public).
    static func equal(_ actual: [UInt8], _ expected: [UInt8]) -> Bool {
        guard actual.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in actual.indices { difference |= actual[index] ^ expected[index] }
        return difference == 0
    }
}
