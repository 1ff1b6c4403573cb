/// The email checks Identity Toolkit applies: one `@` between a non-empty local part and domain, no
/// spaces or control characters, bounded lengths. Addresses compare case-insensitively.
enum EmailAddress {
    static let maximumLength = 256

    static func isValid(_ email: String) -> Bool {
        guard email.utf8.count <= maximumLength else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64, !parts[1].isEmpty,
            !parts[1].hasPrefix("."), !parts[1].hasSuffix(".")
        else { return false }
        return email.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
    }

    /// The form used for uniqueness and look-ups.
    static func normalized(_ email: String) -> String { email.lowercased() }
}
