import Foundation

/// `enrolledAt` as admins send it: RFC 3339, with or without fractional seconds.
enum EnrollmentTime {
    static func parse(_ text: String) -> Date? {
        guard !text.isEmpty else { return nil }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: text) { return date }
        return ISO8601DateFormatter().date(from: text)
    }
}
