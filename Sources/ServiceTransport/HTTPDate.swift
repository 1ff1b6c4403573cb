import Foundation
import Synchronization

/// The value of a response's `Date` header: RFC 9110's IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"),
/// formatted at most once per second and shared by every response of that second.
///
/// Hummingbird's `Application` keeps the same cache with a timer task; ``HTTPListener`` replaces that
/// task (see there), so the value is computed when the first response of a new second asks for it.
public enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))

    /// The header value for the current second.
    public static var now: String {
        let second = time(nil)
        return cache.withLock { cache in
            if cache.second != second { cache = (second, format(secondsSince1970: second)) }
            return cache.text
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate for a time in seconds since 1970, always in GMT with English names.
    public static func format(secondsSince1970 seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func padded(_ value: Int32, _ width: Int = 2) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(days[Int(parts.tm_wday)]), \(padded(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(padded(parts.tm_year + 1900, 4)) "
            + "\(padded(parts.tm_hour)):\(padded(parts.tm_min)):\(padded(parts.tm_sec)) GMT"
    }
}
