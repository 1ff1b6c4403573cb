/// A configuration value that is present but unusable. The service refuses to start with it, naming
/// the key: for a setting that decides what is safe (the deployment mode), falling back to a default
/// would hide a typo that changes what the deployment accepts.
public struct InvalidSetting: Error, CustomStringConvertible {
    public let key: String
    public let reason: String

    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    public var description: String { "configuration key \(key): \(reason)" }
}
