/// A project's or tenant's password policy (`passwordPolicyConfig`, `GET v2/passwordPolicy`): what a
/// password must have. Enforced (`ENFORCE`) where a client sets a password (sign-up, a change, a
/// reset): `PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: [...]`. `OFF` only
/// publishes it, for the SDKs' `validatePassword`.
public struct PasswordPolicy: Codable, Sendable, Hashable {
    /// `ENFORCE` or `OFF`.
    public var enforcementState: String
    public var forceUpgradeOnSignin: Bool
    /// 6...30.
    public var minPasswordLength: Int
    /// At most 4096; `nil`: no maximum beyond the server's own.
    public var maxPasswordLength: Int?
    public var containsLowercaseCharacter: Bool
    public var containsUppercaseCharacter: Bool
    public var containsNumericCharacter: Bool
    public var containsNonAlphanumericCharacter: Bool
    /// RFC 3339, when an operator last changed it.
    public var lastUpdateTime: String?

    public init(
        enforcementState: String, forceUpgradeOnSignin: Bool = false, minPasswordLength: Int = 6, maxPasswordLength: Int? = nil,
        containsLowercaseCharacter: Bool = false, containsUppercaseCharacter: Bool = false, containsNumericCharacter: Bool = false,
        containsNonAlphanumericCharacter: Bool = false, lastUpdateTime: String? = nil
    ) {
        self.enforcementState = enforcementState
        self.forceUpgradeOnSignin = forceUpgradeOnSignin
        self.minPasswordLength = minPasswordLength
        self.maxPasswordLength = maxPasswordLength
        self.containsLowercaseCharacter = containsLowercaseCharacter
        self.containsUppercaseCharacter = containsUppercaseCharacter
        self.containsNumericCharacter = containsNumericCharacter
        self.containsNonAlphanumericCharacter = containsNonAlphanumericCharacter
        self.lastUpdateTime = lastUpdateTime
    }

    /// What a scope without a policy publishes: six characters, not enforced beyond `WEAK_PASSWORD`.
    public static let unset = PasswordPolicy(enforcementState: "OFF")

    /// The characters that count as non-alphanumeric (Identity Platform's list).
    public static let nonAlphanumeric: [String] = [
        "^", "$", "*", ".", "[", "]", "{", "}", "(", ")", "?", "\"", "!", "@", "#", "%", "&", "/", "\\", ",", ">", "<", "'", ":", ";",
        "|", "_", "~", "`", "=", "+", "-",
    ]

    public var enforced: Bool { enforcementState == "ENFORCE" }

    /// The requirements `password` misses, in Identity Platform's words and order; empty when it meets them.
    public func missing(in password: String) -> [String] {
        var missing: [String] = []
        let length = password.count
        if length < minPasswordLength { missing.append("Password must contain at least \(minPasswordLength) characters") }
        if let maxPasswordLength, length > maxPasswordLength {
            missing.append("Password may contain at most \(maxPasswordLength) characters")
        }
        let scalars = password.unicodeScalars
        if containsLowercaseCharacter, !scalars.contains(where: { ("a"..."z").contains($0) }) {
            missing.append("Password must contain a lower case character")
        }
        if containsUppercaseCharacter, !scalars.contains(where: { ("A"..."Z").contains($0) }) {
            missing.append("Password must contain an upper case character")
        }
        if containsNumericCharacter, !scalars.contains(where: { ("0"..."9").contains($0) }) {
            missing.append("Password must contain a numeric character")
        }
        if containsNonAlphanumericCharacter, !password.contains(where: { Self.nonAlphanumeric.contains(String($0)) }) {
            missing.append("Password must contain a non-alphanumeric character")
        }
        return missing
    }
}
