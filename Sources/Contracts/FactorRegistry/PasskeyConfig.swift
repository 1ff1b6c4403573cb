/// `passkeyConfig` of a project or tenant (issue 59, Identity Platform's `GoogleCloudIdentitytoolkitAdminV2PasskeyConfig`):
/// the relying party id authenticators bind passkeys to, and the exact origins a browser may run a
/// ceremony on. Passkeys are on for a scope once both are set.
public struct PasskeyConfig: Codable, Sendable, Hashable {
    public var rpId: String
    public var expectedOrigins: [String]

    public init(rpId: String, expectedOrigins: [String]) {
        self.rpId = rpId
        self.expectedOrigins = expectedOrigins
    }
}
