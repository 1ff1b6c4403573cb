import Foundation

/// A kind of second factor (`phone`, `totp`): how its challenges are made and how a code is
/// checked. Providers hold no state and touch no storage: they return values, and challenge-issuer
/// persists them (secrets sealed, codes hashed) and enforces expiry windows it stores.
///
/// Each kind has its own `Challenge`, holding exactly what checking one of its codes needs (an SMS
/// code's hash, a TOTP factor's secret and last accepted step): adding a kind adds a provider and
/// its challenge, and nothing of another kind's.
public protocol FactorProvider: Sendable {
    /// What challenge-issuer stores for one challenge of this kind (codes only as hashes, secrets
    /// sealed at rest).
    associatedtype Challenge: Sendable

    /// The factor's name in ID tokens' `sign_in_second_factor` and in storage.
    var kind: FactorKind { get }

    /// A new challenge. For SMS: a fresh code (`deliverable`, to send once) and its hash; for TOTP:
    /// a fresh shared secret (`deliverable` is its base32 form, shown once at enrollment).
    func newChallenge(now: Date, lifetime: Duration) -> IssuedChallenge<Challenge>

    /// Checks what the user typed against a stored challenge, in constant time where it compares
    /// secrets. Never throws and never logs: the verdict says what happened.
    func verify(_ code: String, against challenge: Challenge, now: Date) -> Verdict
}

/// A challenge just made: what to store and what to hand out once.
public struct IssuedChallenge<Challenge: Sendable>: Sendable {
    public var challenge: Challenge
    /// The SMS code to send, or the TOTP secret in base32 to show. Never logged.
    public var deliverable: String

    public init(challenge: Challenge, deliverable: String) {
        self.challenge = challenge
        self.deliverable = deliverable
    }
}

public enum Verdict: Sendable, Hashable {
    /// Accepted; for TOTP, the time step the code belonged to (store it as the last accepted one).
    case accepted(step: Int64?)
    case wrongCode
    case expired
    /// The code (or its time step) was already used.
    case replayed
}

// Secrets never reach a log line by accident: printing an issued challenge shows no code or secret.
extension IssuedChallenge: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "IssuedChallenge(\(challenge), deliverable: <redacted>)" }
    public var debugDescription: String { description }
}
