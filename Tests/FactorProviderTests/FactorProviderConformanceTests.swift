import FactorSMS
import FactorTOTP
import Foundation
import PluginKit
import Testing

/// What every factor provider must do, run against each registered kind.
@Suite("Factor provider conformance: every provider")
struct FactorProviderConformanceTests {
    /// A provider with a way to produce the right code for a challenge (what the user's phone or
    /// authenticator app would show).
    struct Subject: Sendable, CustomStringConvertible {
        let provider: any FactorProvider
        let correctCode: @Sendable (IssuedChallenge, Date) -> String
        /// Makes a challenge that has been used once already.
        let used: @Sendable (Challenge, Date) -> Challenge
        var description: String { provider.kind }
    }

    static let subjects: [Subject] = [
        Subject(
            provider: SMSFactorProvider(), correctCode: { issued, _ in issued.deliverable },
            used: { challenge, _ in
                var used = challenge
                used.consumed = true
                return used
            }
        ),
        Subject(
            provider: TOTPFactorProvider(),
            correctCode: { issued, now in
                TOTPFactorProvider.code(secret: issued.challenge.secret!, step: Int64(now.timeIntervalSince1970) / 30)
            },
            used: { challenge, now in
                var used = challenge
                used.lastAcceptedStep = Int64(now.timeIntervalSince1970) / 30
                return used
            }
        ),
    ]

    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("the right code is accepted", arguments: subjects)
    func accepts(subject: Subject) {
        let issued = subject.provider.newChallenge(now: Self.now, lifetime: .seconds(300))
        let verdict = subject.provider.verify(subject.correctCode(issued, Self.now), against: issued.challenge, now: Self.now)
        guard case .accepted = verdict else {
            Issue.record("expected accepted, got \(verdict)")
            return
        }
    }

    @Test("a wrong code, an empty one and garbage are rejected", arguments: subjects)
    func rejectsWrongCodes(subject: Subject) {
        let issued = subject.provider.newChallenge(now: Self.now, lifetime: .seconds(300))
        let right = subject.correctCode(issued, Self.now)
        let wrong = String(format: "%06d", (Int(right)! + 1) % 1_000_000)
        for code in [wrong, "", "12345", "1234567", "abcdef", "' OR 1=1 --", String(repeating: "9", count: 10_000)] {
            #expect(subject.provider.verify(code, against: issued.challenge, now: Self.now) == .wrongCode, "\(code.prefix(20))")
        }
    }

    @Test("an expired challenge is rejected even with the right code", arguments: subjects)
    func rejectsExpired(subject: Subject) {
        let issued = subject.provider.newChallenge(now: Self.now, lifetime: .seconds(60))
        let later = Self.now.addingTimeInterval(61)
        #expect(subject.provider.verify(subject.correctCode(issued, later), against: issued.challenge, now: later) == .expired)
    }

    @Test("a code already used is rejected", arguments: subjects)
    func rejectsReuse(subject: Subject) {
        let issued = subject.provider.newChallenge(now: Self.now, lifetime: .seconds(300))
        let code = subject.correctCode(issued, Self.now)
        let used = subject.used(issued.challenge, Self.now)
        #expect(subject.provider.verify(code, against: used, now: Self.now) == .replayed)
    }

    @Test("printing a challenge or a verdict shows no code, hash or secret", arguments: subjects)
    func nothingSecretInDescriptions(subject: Subject) {
        let issued = subject.provider.newChallenge(now: Self.now, lifetime: .seconds(300))
        let code = subject.correctCode(issued, Self.now)
        let verdict = subject.provider.verify("000000", against: issued.challenge, now: Self.now)
        for text in ["\(issued)", String(reflecting: issued), "\(issued.challenge)", "\(verdict)"] {
            #expect(!text.contains(code))
            #expect(!text.contains(issued.deliverable))
            for bytes in [issued.challenge.secret, issued.challenge.codeHash].compactMap({ $0 }) {
                #expect(!text.contains(bytes.map { String(format: "%02x", $0) }.joined()))
                #expect(!text.contains("\(bytes)"))
            }
        }
    }

    @Test("fresh challenges differ", arguments: subjects)
    func freshness(subject: Subject) {
        let deliverables = Set((0..<50).map { _ in subject.provider.newChallenge(now: Self.now, lifetime: .seconds(60)).deliverable })
        #expect(deliverables.count >= 45)
    }
}
