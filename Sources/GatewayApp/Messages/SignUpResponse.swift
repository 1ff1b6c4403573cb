/// The answer of `v1/accounts:signUp`: the new account, with its first tokens unless an admin
/// created it (createUser gets none).
struct SignUpResponse: SessionAnswer {
    static let schema = "GoogleCloudIdentitytoolkitV1SignUpResponse"
    var kind = "identitytoolkit#SignupNewUserResponse"
    var localId: String
    var email: String?
    var displayName: String?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}
