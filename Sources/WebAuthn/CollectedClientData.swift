import Foundation

/// The browser's record of the ceremony (WebAuthn §5.8.1): what kind, for which challenge, on which
/// origin. Parsed from the exact bytes the authenticator's signature covers (through their hash).
public struct CollectedClientData: Sendable {
    public let type: String
    /// The challenge as the browser wrote it: base64url without padding.
    public let challenge: String
    public let origin: String
    public let crossOrigin: Bool
    public let topOrigin: String?

    public struct Malformed: Error, Hashable {
        public let reason: String
    }

    /// Browsers write well under 1 KiB; more is not a client's data.
    public static let maximumLength = 16 * 1024

    public init(_ raw: [UInt8]) throws(Malformed) {
        guard raw.count <= Self.maximumLength,
            let object = (try? JSONSerialization.jsonObject(with: Data(raw))) as? [String: Any]
        else { throw Malformed(reason: "not a JSON object") }
        guard let type = object["type"] as? String, let challenge = object["challenge"] as? String,
            let origin = object["origin"] as? String
        else { throw Malformed(reason: "type, challenge or origin missing") }
        (self.type, self.challenge, self.origin) = (type, challenge, origin)
        crossOrigin = object["crossOrigin"] as? Bool ?? false
        topOrigin = object["topOrigin"] as? String
    }
}
