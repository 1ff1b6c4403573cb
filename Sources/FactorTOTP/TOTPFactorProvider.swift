import Crypto
import Foundation
import PluginKit

/// TOTP second factors (RFC 6238 as Firebase uses it, contract §3.9): HMAC-SHA1, 6 digits, 30-second
/// steps; 160-bit secrets shown as 32 base32 characters without padding; codes from
/// `adjacentIntervals` steps either side of now are accepted, each step at most once per factor.
public struct TOTPFactorProvider: FactorProvider {
    public static let digits = 6
    public static let period: Int64 = 30
    public static let secretBytes = 20

    public init() {}

    public var kind: FactorKind { .totp }

    public func newChallenge(now: Date, lifetime: Duration) -> IssuedChallenge<TOTPChallenge> {
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<Self.secretBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return IssuedChallenge(
            challenge: TOTPChallenge(expiresAt: now.addingTimeInterval(Double(lifetime.components.seconds)), secret: secret),
            deliverable: Base32.encode(secret)
        )
    }

    public func verify(_ code: String, against challenge: TOTPChallenge, now: Date) -> Verdict {
        guard now < challenge.expiresAt else { return .expired }
        let secret = challenge.secret
        guard code.utf8.count == Self.digits,
            code.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return .wrongCode }
        let current = Int64(now.timeIntervalSince1970) / Self.period
        let window = Int64(max(0, min(challenge.adjacentIntervals, 10)))
        var matched: Int64?
        var usedBefore = false
        // Every candidate step is computed and compared, so the time taken does not say which matched.
        // Six digits repeat: about once in 10^5 checks the code of a fresh step is also the code of
        // another step in the window. A step already used must not hide a fresh one with the same
        // code, so the earliest matching step after the last accepted one is taken.
        for step in (current - window)...(current + window) where step >= 0 {
            guard Self.constantTimeEquals(Self.code(secret: secret, step: step), code) else { continue }
            if let last = challenge.lastAcceptedStep, step <= last {
                usedBefore = true
            } else if matched == nil {
                matched = step
            }
        }
        if let matched { return .accepted(step: matched) }
        return usedBefore ? .replayed : .wrongCode
    }

    /// The code of one time step (RFC 4226 dynamic truncation).
    public static func code(secret: [UInt8], step: Int64) -> String {
        var counter = UInt64(step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        let value = binary % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: digits - text.count) + text
    }

    static func constantTimeEquals(_ left: String, _ right: String) -> Bool {
        let (a, b) = (Array(left.utf8), Array(right.utf8))
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
