/// `securetoken v1/token`: a refresh token exchanged for new tokens.
struct GrantTokenRequest: DiscoveryMessage {
    static let schema = "GrantTokenRequest"
    var grantType: String?
    var refreshToken: String?
}
