/// Tenant ids and account ids (`localId`): 28 random ASCII letters and digits from the system
/// CSPRNG (the emulator's format); as a tenant id it is also a valid schema name suffix.
enum RandomIdentifier {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<28).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
