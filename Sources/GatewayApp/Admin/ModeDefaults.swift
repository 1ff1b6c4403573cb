import ServiceKit

/// What a scope's switch means while no operator has set it, by the deployment's mode: the safe
/// choice in production, the convenient one in development.
struct ModeDefaults: Sendable {
    /// Improved email privacy (decision 19): on in production.
    let improvedEmailPrivacy: Bool
    /// The phone as a first factor (`signIn.phoneNumber.enabled`): off in production, where each
    /// code costs money and an operator decides to offer it.
    let phoneSignIn: Bool

    init(mode: DeploymentMode) {
        improvedEmailPrivacy = mode == .production
        phoneSignIn = mode == .development
    }
}
