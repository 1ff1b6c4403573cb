import FactorTOTP
import Foundation
import PluginKit
import Testing

@Suite("TOTP: RFC 6238 codes, windows, replay, base32")
struct TOTPTests {
    static let rfcSecret = Array("12345678901234567890".utf8)

    @Test(
        "codes match RFC 6238's SHA-1 test vectors (last six digits)",
        arguments: [
            (59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"), (2_000_000_000, "279037"),
        ]
    )
    func rfcVectors(time: Int64, code: String) {
        #expect(TOTPFactorProvider.code(secret: Self.rfcSecret, step: time / 30) == code)
    }

    @Test("codes from adjacentIntervals steps either side are accepted, one step further is not")
    func window() {
        let provider = TOTPFactorProvider()
        let now = Date(timeIntervalSince1970: 1_795_000_015)
        let step = Int64(1_795_000_015) / 30
        let challenge = TOTPChallenge(expiresAt: .distantFuture, secret: Self.rfcSecret, adjacentIntervals: 2)
        for offset in -2...2 {
            let code = TOTPFactorProvider.code(secret: Self.rfcSecret, step: step + Int64(offset))
            #expect(provider.verify(code, against: challenge, now: now) == .accepted(step: step + Int64(offset)))
        }
        for offset in [-3, 3] {
            let code = TOTPFactorProvider.code(secret: Self.rfcSecret, step: step + Int64(offset))
            #expect(provider.verify(code, against: challenge, now: now) == .wrongCode)
        }
        var zeroWindow = challenge
        zeroWindow.adjacentIntervals = 0
        #expect(
            provider.verify(TOTPFactorProvider.code(secret: Self.rfcSecret, step: step - 1), against: zeroWindow, now: now) == .wrongCode)
    }

    @Test("a code of a step at or before the last accepted one is a replay")
    func replay() {
        let provider = TOTPFactorProvider()
        let now = Date(timeIntervalSince1970: 1_795_000_015)
        let step = Int64(1_795_000_015) / 30
        var challenge = TOTPChallenge(expiresAt: .distantFuture, secret: Self.rfcSecret, adjacentIntervals: 1)
        challenge.lastAcceptedStep = step
        #expect(provider.verify(TOTPFactorProvider.code(secret: Self.rfcSecret, step: step), against: challenge, now: now) == .replayed)
        #expect(provider.verify(TOTPFactorProvider.code(secret: Self.rfcSecret, step: step - 1), against: challenge, now: now) == .replayed)
        #expect(
            provider.verify(TOTPFactorProvider.code(secret: Self.rfcSecret, step: step + 1), against: challenge, now: now)
                == .accepted(step: step + 1))
    }

    @Test("a fresh step whose code repeats a used step's code in the window is accepted, as that fresh step")
    func repeatedCodeAfterAUsedStep() {
        // Two steps of RFC 6238's test secret with the same six digits (such pairs come about once in
        // 10^5 steps; Python's hmac gives the same codes).
        let (used, fresh): (Int64, Int64) = (56_188_870, 56_188_871)
        let code = TOTPFactorProvider.code(secret: Self.rfcSecret, step: fresh)
        #expect(code == "617002" && TOTPFactorProvider.code(secret: Self.rfcSecret, step: used) == code)
        let provider = TOTPFactorProvider()
        // Both steps inside a window of 5 either side of now; the earlier one already accepted.
        let now = Date(timeIntervalSince1970: Double((used + 5) * 30 + 1))
        let challenge = TOTPChallenge(expiresAt: .distantFuture, secret: Self.rfcSecret, adjacentIntervals: 5, lastAcceptedStep: used)
        #expect(provider.verify(code, against: challenge, now: now) == .accepted(step: fresh))
        // Once the fresh step is used too, the same code is a replay.
        let later = TOTPChallenge(expiresAt: .distantFuture, secret: Self.rfcSecret, adjacentIntervals: 5, lastAcceptedStep: fresh)
        #expect(provider.verify(code, against: later, now: now) == .replayed)
    }

    @Test("secrets are 160 bits shown as 32 base32 characters without padding")
    func secrets() {
        let issued = TOTPFactorProvider().newChallenge(now: Date(), lifetime: .seconds(300))
        #expect(issued.challenge.secret.count == 20)
        #expect(issued.deliverable.count == 32)
        #expect(issued.deliverable.allSatisfy { "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".contains($0) })
        #expect(Base32.decode(issued.deliverable) == issued.challenge.secret)
    }

    @Test("base32 matches RFC 4648 and reads lower case and padding")
    func base32() {
        #expect(Base32.encode(Self.rfcSecret) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.decode("mzxw6ytboi======") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW6YTBO1") == nil)
    }
}
