import Foundation

/// An SMS code as challenge-issuer stores it: only a hash of it, valid until `expiresAt` and once.
public struct SMSChallenge: Sendable, Hashable {
    public var expiresAt: Date
    /// SHA-256 of `salt` and the code.
    public var codeHash: [UInt8]
    public var salt: [UInt8]
    /// Already used successfully.
    public var consumed: Bool

    public init(expiresAt: Date, codeHash: [UInt8], salt: [UInt8], consumed: Bool = false) {
        self.expiresAt = expiresAt
        self.codeHash = codeHash
        self.salt = salt
        self.consumed = consumed
    }
}

// Printing a challenge shows no hash or salt.
extension SMSChallenge: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "SMSChallenge(expiresAt: \(expiresAt), consumed: \(consumed))" }
    public var debugDescription: String { description }
}
