import Foundation

/// The Date header's form (RFC 5322 3.3), always in UTC: `Thu, 01 Jan 1970 00:00:00 +0000`.
///
/// Computed from the epoch seconds rather than with a DateFormatter: no locale or time-zone state
/// can change the English day and month names the format requires.
enum MessageDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func rfc5322(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let (dayNumber, secondOfDay) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = civil(fromDays: dayNumber)
        let weekday = (dayNumber + 4).floorDivided(by: 7).remainder  // 1970-01-01 was a Thursday.
        let time = [secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60].map(twoDigits).joined(separator: ":")
        return "\(days[weekday]), \(twoDigits(day)) \(months[month - 1]) \(year) \(time) +0000"
    }

    /// Year, month (1-12) and day for a count of days since 1970-01-01, proleptic Gregorian
    /// (Howard Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // March = 0
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

extension Int {
    /// Division rounding towards minus infinity, so dates before 1970 land on the right day.
    fileprivate func floorDivided(by divisor: Int) -> (quotient: Int, remainder: Int) {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
