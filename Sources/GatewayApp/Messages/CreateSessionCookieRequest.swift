/// `v1/projects/{p}[/tenants/{t}]:createSessionCookie` (the Admin SDKs' `create_session_cookie`).
struct CreateSessionCookieRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV1CreateSessionCookieRequest"
    var idToken: String?
    var tenantId: String?
    /// Seconds, int64 as a string (a number is normalised to one).
    var validDuration: String?
}
