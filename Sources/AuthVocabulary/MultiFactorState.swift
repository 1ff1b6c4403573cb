/// A second-factor setting's state (`mfa.state`, `providerConfigs[].state`): `DISABLED`, `ENABLED` or
/// `MANDATORY`, and the unspecified states the wire also carries, which are stored as `DISABLED`. A
/// type over the string rather than an enum: factor-registry's settings validator refuses any other
/// value with the contract's own error (`INVALID_CONFIG`), which a decoding failure would replace.
public struct MultiFactorState: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let disabled = MultiFactorState(rawValue: "DISABLED")
    public static let enabled = MultiFactorState(rawValue: "ENABLED")
    /// Every user must enrol a factor (docs/mfa-policy.md).
    public static let mandatory = MultiFactorState(rawValue: "MANDATORY")
    /// The states a stored setting may hold.
    public static let stored: Set<MultiFactorState> = [.disabled, .enabled, .mandatory]

    /// As stored: `STATE_UNSPECIFIED` (and a provider config's `MFA_STATE_UNSPECIFIED`) is disabled.
    public var canonical: MultiFactorState {
        rawValue == "STATE_UNSPECIFIED" || rawValue == "MFA_STATE_UNSPECIFIED" ? .disabled : self
    }

    /// Second factors are on (ENABLED or MANDATORY).
    public var isOn: Bool { self == .enabled || self == .mandatory }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
