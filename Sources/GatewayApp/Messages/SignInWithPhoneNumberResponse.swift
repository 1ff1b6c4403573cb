/// The answer of `v1/accounts:signInWithPhoneNumber`: the tokens, or, when the number is another
/// account's, a `temporaryProof` to sign in to that one instead.
struct SignInWithPhoneNumberResponse: SessionAnswer {
    static let schema = "GoogleCloudIdentitytoolkitV1SignInWithPhoneNumberResponse"
    var localId: String?
    var isNewUser: Bool?
    var phoneNumber: String
    var temporaryProof: String?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}
