/// Tenant ids: 28 random ASCII letters and digits from the system CSPRNG (the emulator's format),
/// which also makes a valid schema name suffix.
enum TenantIDGenerator {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<28).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
