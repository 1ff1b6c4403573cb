import FactorSMS
import FactorTOTP
import Foundation
import PluginKit
import Testing

/// What every factor provider must do, run against each registered kind.
@Suite("Factor provider conformance: every provider")
struct FactorProviderConformanceTests {
    /// A provider with a way to produce the right code for a challenge (what the user's phone or
    /// authenticator app would show), seen through its kind's own challenge type.
    struct Subject: Sendable, CustomStringConvertible {
        let kind: FactorKind
        /// Issues a challenge valid for `lifetime` from `now`.
        let issue: @Sendable (_ now: Date, _ lifetime: Duration) -> Trial
        var description: String { kind.rawValue }
    }

    /// One issued challenge and what a test does with it.
    struct Trial {
        let deliverable: String
        let correctCode: (Date) -> String
        let verify: (_ code: String, _ now: Date) -> Verdict
        /// The same check once the challenge has been used.
        let verifyUsed: (_ code: String, _ now: Date) -> Verdict
        /// The issued challenge and its challenge, printed both ways.
        let descriptions: [String]
        /// Its code hash or secret.
        let secrets: [[UInt8]]
    }

    static func subject<Provider: FactorProvider>(
        _ provider: Provider,
        correctCode: @escaping @Sendable (IssuedChallenge<Provider.Challenge>, Date) -> String,
        used: @escaping @Sendable (Provider.Challenge, Date) -> Provider.Challenge,
        secrets: @escaping @Sendable (Provider.Challenge) -> [[UInt8]]
    ) -> Subject {
        Subject(kind: provider.kind) { now, lifetime in
            let issued = provider.newChallenge(now: now, lifetime: lifetime)
            return Trial(
                deliverable: issued.deliverable,
                correctCode: { correctCode(issued, $0) },
                verify: { provider.verify($0, against: issued.challenge, now: $1) },
                verifyUsed: { provider.verify($0, against: used(issued.challenge, $1), now: $1) },
                descriptions: ["\(issued)", String(reflecting: issued), "\(issued.challenge)", String(reflecting: issued.challenge)],
                secrets: secrets(issued.challenge)
            )
        }
    }

    static let subjects: [Subject] = [
        subject(
            SMSFactorProvider(), correctCode: { issued, _ in issued.deliverable },
            used: { challenge, _ in
                var used = challenge
                used.consumed = true
                return used
            },
            secrets: { [$0.codeHash, $0.salt] }
        ),
        subject(
            TOTPFactorProvider(),
            correctCode: { issued, now in
                TOTPFactorProvider.code(secret: issued.challenge.secret, step: Int64(now.timeIntervalSince1970) / 30)
            },
            used: { challenge, now in
                var used = challenge
                used.lastAcceptedStep = Int64(now.timeIntervalSince1970) / 30
                return used
            },
            secrets: { [$0.secret] }
        ),
    ]

    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("the right code is accepted", arguments: subjects)
    func accepts(subject: Subject) {
        let trial = subject.issue(Self.now, .seconds(300))
        let verdict = trial.verify(trial.correctCode(Self.now), Self.now)
        guard case .accepted = verdict else {
            Issue.record("expected accepted, got \(verdict)")
            return
        }
    }

    @Test("a wrong code, an empty one and garbage are rejected", arguments: subjects)
    func rejectsWrongCodes(subject: Subject) {
        let trial = subject.issue(Self.now, .seconds(300))
        let right = trial.correctCode(Self.now)
        let wrong = String(format: "%06d", (Int(right)! + 1) % 1_000_000)
        for code in [wrong, "", "12345", "1234567", "abcdef", "' OR 1=1 --", String(repeating: "9", count: 10_000)] {
            #expect(trial.verify(code, Self.now) == .wrongCode, "\(code.prefix(20))")
        }
    }

    @Test("an expired challenge is rejected even with the right code", arguments: subjects)
    func rejectsExpired(subject: Subject) {
        let trial = subject.issue(Self.now, .seconds(60))
        let later = Self.now.addingTimeInterval(61)
        #expect(trial.verify(trial.correctCode(later), later) == .expired)
    }

    @Test("a code already used is rejected", arguments: subjects)
    func rejectsReuse(subject: Subject) {
        let trial = subject.issue(Self.now, .seconds(300))
        #expect(trial.verifyUsed(trial.correctCode(Self.now), Self.now) == .replayed)
    }

    @Test("printing a challenge or a verdict shows no code, hash or secret", arguments: subjects)
    func nothingSecretInDescriptions(subject: Subject) {
        let trial = subject.issue(Self.now, .seconds(300))
        let code = trial.correctCode(Self.now)
        let verdict = trial.verify("000000", Self.now)
        #expect(!trial.secrets.isEmpty)
        for text in trial.descriptions + ["\(verdict)"] {
            #expect(!text.contains(code))
            #expect(!text.contains(trial.deliverable))
            for bytes in trial.secrets {
                #expect(!text.contains(bytes.map { String(format: "%02x", $0) }.joined()))
                #expect(!text.contains("\(bytes)"))
            }
        }
    }

    @Test("fresh challenges differ", arguments: subjects)
    func freshness(subject: Subject) {
        let deliverables = Set((0..<50).map { _ in subject.issue(Self.now, .seconds(60)).deliverable })
        #expect(deliverables.count >= 45)
    }
}
