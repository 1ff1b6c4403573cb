/// The answer of `securetoken v1/token`: the new tokens, in the token endpoint's snake_case
/// (`access_token` is the ID token again, as Google's answers have it).
struct GrantTokenResponse: DiscoveryMessage {
    static let schema = "GrantTokenResponse"
    var idToken: String
    var accessToken: String
    var expiresIn: String
    var refreshToken: String
    var tokenType = "Bearer"
    var userId: String
    /// Google sends the project number here (the emulator "12345").
    var projectId: String

    enum CodingKeys: String, CodingKey {
        case idToken = "id_token"
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case userId = "user_id"
        case projectId = "project_id"
    }
}
