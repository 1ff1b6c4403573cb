/// `development` (the local stack's default) enables the emulator-compatible conveniences of the
/// contract's decision 11 and 12 (`Bearer owner`, any API key, helper routes); `production` accepts
/// none of them.
public enum DeploymentMode: String, Sendable, Codable {
    case development
    case production
}
