import AuthVocabulary
import Contracts
import IdentityToolkit

/// What the scope's MFA settings allow (contract §3.4, §3.5).
enum SecondFactorPolicy {
    /// First factors that can never carry a second factor.
    static let unsupportedFirstFactors: Set<SignInProvider> = [.anonymous, .phone, .custom, .gameCenter]

    static let unsupportedFirstFactor = IdentityToolkitError(
        .unsupportedFirstFactor, detail: "MFA is not available for the given first factor.")

    /// The factor kinds whose enrollment makes a first-factor sign-in stop at the MFA branch: each
    /// kind's strategy decides.
    static func requiredKinds(_ settings: AuthSettings) -> [FactorKind] {
        SecondFactorKinds.types.filter { $0.stopsFirstFactor(settings) }.map { $0.kind }
    }

    /// Whether the scope's MFA state is on (`ENABLED` or `MANDATORY`).
    static func isOn(_ settings: AuthSettings) -> Bool {
        settings.mfaConfig.isOn
    }

    static func checkFirstFactor(_ provider: SignInProvider) throws {
        if unsupportedFirstFactors.contains(provider) { throw unsupportedFirstFactor }
    }
}
