/// How long a text is as an SMS: GSM-7 when every character is in the GSM 03.38 default alphabet
/// (160 characters in one segment, 153 per segment when split; the extension table's characters
/// count twice), else UCS-2 (70 UTF-16 units in one segment, 67 per segment when split).
public struct SMSLength: Sendable, Hashable {
    public enum Encoding: String, Sendable, Hashable {
        case gsm7 = "GSM-7"
        case ucs2 = "UCS-2"
    }

    public let encoding: Encoding
    /// Septets (GSM-7) or UTF-16 code units (UCS-2).
    public let units: Int
    public let segments: Int

    public init(of text: String) {
        var septets = 0
        var fitsGSM = true
        for scalar in text.unicodeScalars {
            if Self.basic.contains(scalar) {
                septets += 1
            } else if Self.extensionTable.contains(scalar) {
                septets += 2
            } else {
                fitsGSM = false
                break
            }
        }
        if fitsGSM {
            encoding = .gsm7
            units = septets
            segments = septets <= 160 ? 1 : (septets + 152) / 153
        } else {
            encoding = .ucs2
            units = text.utf16.count
            segments = units <= 70 ? 1 : (units + 66) / 67
        }
    }

    static let basic = Set(
        "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
            .unicodeScalars
    )
    static let extensionTable = Set("\u{0C}^{}\\[~]|€".unicodeScalars)
}
