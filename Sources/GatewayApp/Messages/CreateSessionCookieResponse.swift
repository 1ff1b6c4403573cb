struct CreateSessionCookieResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1CreateSessionCookieResponse"
    var sessionCookie: String
}
