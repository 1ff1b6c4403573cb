/// A request that may name its tenant (`tenantId`): the tenant must then be the one its credential
/// (ID token, pending credential) belongs to.
protocol TenantNamingRequest: DiscoveryMessage {
    var tenantId: String? { get }
}

/// A request made by a signed-in user, with their ID token (``SignedInUser``).
protocol SignedInRequest: TenantNamingRequest {
    var idToken: String? { get }
}
