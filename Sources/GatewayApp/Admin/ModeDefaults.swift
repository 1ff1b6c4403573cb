import ServiceKit
import ServiceTransport

/// What a scope's switch means while no operator has set it, by the deployment's mode: the safe
/// choice in production, the convenient one in development.
struct ModeDefaults: Sendable {
    /// Improved email privacy (decision 19): on in production.
    let improvedEmailPrivacy: Bool
    /// The phone as a first factor (`signIn.phoneNumber.enabled`): off in production, where each
    /// code costs money and an operator decides to offer it.
    let phoneSignIn: Bool
    /// Blocking functions are called over HTTPS only in production; development may name a
    /// function on plain HTTP (a local `functions-framework`).
    let blockingFunctionsNeedHTTPS: Bool

    init(mode: DeploymentMode) {
        improvedEmailPrivacy = mode == .production
        phoneSignIn = mode == .development
        blockingFunctionsNeedHTTPS = mode == .production
    }
}
