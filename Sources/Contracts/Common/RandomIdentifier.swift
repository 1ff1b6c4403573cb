/// Tenant ids, account ids (`localId`) and enrollment ids (`mfaEnrollmentId`): 28 random ASCII letters and digits from the system
/// CSPRNG (the emulator's format); as a tenant id it is also a valid schema name suffix.
public enum RandomIdentifier {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// 28 letters and digits: the shape of every id this service hands out.
    public static func isValid(_ text: String) -> Bool {
        text.utf8.count == 28 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }
    }

    /// The id's shape from given bytes (a digest): one letter or digit per byte, the first 28.
    public static func from(bytes: [UInt8]) -> String {
        precondition(bytes.count >= 28)
        return String(bytes.prefix(28).map { alphabet[Int($0) % alphabet.count] })
    }

    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<28).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
