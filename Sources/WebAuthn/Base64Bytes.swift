import Foundation

/// Bytes as the SDKs send them: the web SDK in base64url without padding, iOS in standard base64
/// with padding. Either alphabet is read, with or without padding; anything else is `nil`.
public enum Base64Bytes {
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = standard.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: standard).map(Array.init)
    }

    /// What browsers put in `clientDataJSON.challenge` and `PublicKeyCredential.id`.
    public static func url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// What the options carry (iOS reads bytes with `Data(base64Encoded:)`, padded standard base64 only).
    public static func standard(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}
