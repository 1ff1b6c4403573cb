import Foundation

/// An instant in whole seconds since the Unix epoch: the unit of every ID token's times (`iat`,
/// `exp`, `auth_time`, `firebase.second_factor_auth_time`), of an account's `validSince` and of the
/// instants the services pass each other about sessions. A type rather than `Int64` because the
/// same contracts also carry milliseconds (an account's `createdAt` and `lastLoginAt` strings, a
/// recorded sign-in's time, `mandatorySince`): one passed for the other is a session a thousand
/// times too old or too young, which the compiler now refuses. The wire and the database keep the
/// plain integer.
public struct EpochSeconds: RawRepresentable, Codable, Sendable, Hashable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public var rawValue: Int64

    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    public init(_ seconds: Int64) {
        self.rawValue = seconds
    }

    /// A literal instant, as tests and fixed dates write one: `authTime: 1_700_000_000`.
    public init(integerLiteral seconds: Int64) {
        self.rawValue = seconds
    }

    /// The instant `date` falls in (fractions dropped, as a JWT's `NumericDate` is written).
    public init(_ date: Date) {
        self.rawValue = Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// The instant `milliseconds` since the epoch falls in.
    public init(milliseconds: Int64) {
        self.rawValue = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
    }

    /// Now, by this process's wall clock.
    public static var now: EpochSeconds { EpochSeconds(Date()) }

    public var date: Date { Date(timeIntervalSince1970: TimeInterval(rawValue)) }

    /// The instant in milliseconds since the epoch (its first millisecond).
    public var milliseconds: Int64 { rawValue * 1000 }

    public var description: String { String(rawValue) }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: EpochSeconds, rhs: EpochSeconds) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The instant `seconds` later.
    public static func + (instant: EpochSeconds, seconds: Int64) -> EpochSeconds { EpochSeconds(instant.rawValue + seconds) }

    /// The instant `seconds` earlier.
    public static func - (instant: EpochSeconds, seconds: Int64) -> EpochSeconds { EpochSeconds(instant.rawValue - seconds) }

    /// The seconds from `earlier` to `later`.
    public static func - (later: EpochSeconds, earlier: EpochSeconds) -> Int64 { later.rawValue - earlier.rawValue }
}
