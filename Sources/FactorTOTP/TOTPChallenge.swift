import Foundation

/// A TOTP factor (or an enrollment in progress) as challenge-issuer checks a code against it.
public struct TOTPChallenge: Sendable, Hashable {
    /// The end of an enrollment's window; a factor's is the distant future.
    public var expiresAt: Date
    /// The shared secret (20 bytes), sealed at rest.
    public var secret: [UInt8]
    /// Codes from this many 30-second steps before and after now are accepted.
    public var adjacentIntervals: Int
    /// The last time step accepted for this factor; a code of that step or earlier is a replay.
    public var lastAcceptedStep: Int64?

    public init(expiresAt: Date, secret: [UInt8], adjacentIntervals: Int = 0, lastAcceptedStep: Int64? = nil) {
        self.expiresAt = expiresAt
        self.secret = secret
        self.adjacentIntervals = adjacentIntervals
        self.lastAcceptedStep = lastAcceptedStep
    }
}

// Printing a challenge shows no secret.
extension TOTPChallenge: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "TOTPChallenge(expiresAt: \(expiresAt), adjacentIntervals: \(adjacentIntervals), lastAcceptedStep: \(lastAcceptedStep.map(String.init) ?? "none"))"
    }
    public var debugDescription: String { description }
}
