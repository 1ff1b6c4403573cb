/// `v2/accounts/passkeyEnrollment:start` (issue 59).
struct StartPasskeyEnrollmentRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV2StartPasskeyEnrollmentRequest"
    var idToken: String?
    var tenantId: String?
}

/// `v2/accounts/passkeyEnrollment:finalize`: the new credential, and its name (`name`, or the web
/// SDK's `displayName`).
struct FinalizePasskeyEnrollmentRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV2FinalizePasskeyEnrollmentRequest"
    var idToken: String?
    var tenantId: String?
    var name: String?
    var displayName: String?
    var authenticatorRegistrationResponse: AuthenticatorRegistrationResponse?
}

/// A new credential in either shape the sources show: the SDKs' W3C `PublicKeyCredential` JSON
/// (`id`, `rawId`, `response`) or Google's proto shape (`credentialId`, `authenticatorAttestationResponse`).
struct AuthenticatorRegistrationResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2AuthenticatorRegistrationResponse"
    var id: String?
    var rawId: String?
    var type: String?
    var response: AuthenticatorAttestationResponse?
    var credentialId: String?
    var credentialType: String?
    var authenticatorAttestationResponse: AuthenticatorAttestationResponse?
}

struct AuthenticatorAttestationResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2AuthenticatorAttestationResponse"
    var clientDataJSON: String?
    /// The proto shape's spelling.
    var clientDataJson: String?
    var attestationObject: String?
}

/// `v2/accounts/passkeySignIn:start`.
struct StartPasskeySignInRequest: TenantNamingRequest {
    static let schema = "GoogleCloudIdentitytoolkitV2StartPasskeySignInRequest"
    var tenantId: String?
}

/// `v2/accounts/passkeySignIn:finalize`.
struct FinalizePasskeySignInRequest: TenantNamingRequest {
    static let schema = "GoogleCloudIdentitytoolkitV2FinalizePasskeySignInRequest"
    var tenantId: String?
    var authenticatorAuthenticationResponse: AuthenticatorAuthenticationResponse?
}

struct AuthenticatorAuthenticationResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2AuthenticatorAuthenticationResponse"
    var id: String?
    var rawId: String?
    var type: String?
    var response: AuthenticatorAssertionResponse?
    var credentialId: String?
    var credentialType: String?
    var authenticatorAssertionResponse: AuthenticatorAssertionResponse?
}

struct AuthenticatorAssertionResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2AuthenticatorAssertionResponse"
    var clientDataJSON: String?
    var clientDataJson: String?
    var authenticatorData: String?
    var signature: String?
    var userHandle: String?
}
