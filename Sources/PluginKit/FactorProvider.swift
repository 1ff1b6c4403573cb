import Foundation

/// A kind of second factor (`phone`, `totp`): how its challenges are made and how a code is
/// checked. Providers hold no state and touch no storage: they return values, and challenge-issuer
/// persists them (secrets sealed, codes hashed) and enforces expiry windows it stores.
public protocol FactorProvider: Sendable {
    /// The factor's name in ID tokens' `sign_in_second_factor` and in storage.
    var kind: String { get }

    /// A new challenge. For SMS: a fresh code (`deliverable`, to send once) and its hash; for TOTP:
    /// a fresh shared secret (`deliverable` is its base32 form, shown once at enrollment).
    func newChallenge(now: Date, lifetime: Duration) -> IssuedChallenge

    /// Checks what the user typed against a stored challenge, in constant time where it compares
    /// secrets. Never throws and never logs: the verdict says what happened.
    func verify(_ code: String, against challenge: Challenge, now: Date) -> Verdict
}

/// What challenge-issuer stores for a challenge (the code only as a hash, the secret sealed at rest).
public struct Challenge: Sendable, Hashable {
    public var expiresAt: Date
    /// SMS: SHA-256 of salt and code.
    public var codeHash: [UInt8]?
    public var salt: [UInt8]?
    /// TOTP: the shared secret (20 bytes).
    public var secret: [UInt8]?
    /// TOTP: codes from this many 30-second steps before and after now are accepted.
    public var adjacentIntervals: Int
    /// TOTP: the last time step accepted for this factor; a code of that step or earlier is a replay.
    public var lastAcceptedStep: Int64?
    /// A challenge already used successfully.
    public var consumed: Bool

    public init(
        expiresAt: Date, codeHash: [UInt8]? = nil, salt: [UInt8]? = nil, secret: [UInt8]? = nil, adjacentIntervals: Int = 0,
        lastAcceptedStep: Int64? = nil, consumed: Bool = false
    ) {
        self.expiresAt = expiresAt
        self.codeHash = codeHash
        self.salt = salt
        self.secret = secret
        self.adjacentIntervals = adjacentIntervals
        self.lastAcceptedStep = lastAcceptedStep
        self.consumed = consumed
    }
}

/// A challenge just made: what to store and what to hand out once.
public struct IssuedChallenge: Sendable {
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

// Secrets never reach a log line by accident: printing a challenge shows no code, hash or secret.
extension Challenge: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "Challenge(expiresAt: \(expiresAt), consumed: \(consumed), lastAcceptedStep: \(lastAcceptedStep.map(String.init) ?? "none"))"
    }
    public var debugDescription: String { description }
}

extension IssuedChallenge: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "IssuedChallenge(\(challenge), deliverable: <redacted>)" }
    public var debugDescription: String { description }
}
