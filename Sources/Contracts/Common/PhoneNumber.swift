/// E.164 phone numbers as the contract requires them (decision 7): `+`, then 1 to 15 digits, no
/// spaces or punctuation. Anything else is `INVALID_PHONE_NUMBER : Invalid format.`
/// (`IdentityToolkitError.invalidPhoneNumberFormat`).
public enum PhoneNumber {
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.count <= 16, bytes[0] == UInt8(ascii: "+") else { return false }
        return bytes.dropFirst().allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Every digit but the last four replaced by `*`, the `+` kept (contract §3.2): `+*******0100`.
    public static func masked(_ text: String) -> String {
        let digits = text.filter(\.isNumber).count
        var seen = 0
        return String(
            text.map { character in
                guard character.isNumber else { return character }
                seen += 1
                return seen <= digits - 4 ? "*" : character
            }
        )
    }
}
