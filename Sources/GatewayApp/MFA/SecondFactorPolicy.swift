import Contracts
import IdentityToolkit

/// What the scope's MFA settings allow (contract §3.4, §3.5).
enum SecondFactorPolicy {
    /// First factors that can never carry a second factor.
    static let unsupportedFirstFactors: Set<String> = ["anonymous", "phone", "custom", "gc.apple.com"]

    static let unsupportedFirstFactor = IdentityToolkitError(
        .unsupportedFirstFactor, detail: "MFA is not available for the given first factor.")

    /// The factor kinds whose enrollment makes a first-factor sign-in stop at the MFA branch.
    static func requiredKinds(_ settings: AuthSettings) -> [String] {
        // MFA on (phone needs it on anyway): any factor stops the sign-in; otherwise only a TOTP
        // factor does, when TOTP is enabled through providerConfigs alone (§3.5).
        if ["ENABLED", "MANDATORY"].contains(settings.mfaConfig.state) {
            return ["phone", "totp"]
        }
        return settings.mfaConfig.totpAdjacentIntervals != nil ? ["totp"] : []
    }

    static func checkFirstFactor(_ provider: String) throws {
        if unsupportedFirstFactors.contains(provider) { throw unsupportedFirstFactor }
    }
}
