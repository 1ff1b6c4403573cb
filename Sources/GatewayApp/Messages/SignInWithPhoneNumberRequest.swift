/// `v1/accounts:signInWithPhoneNumber`: an SMS code (or a temporary proof) that signs in, or links
/// the number to the signed-in user.
struct SignInWithPhoneNumberRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV1SignInWithPhoneNumberRequest"
    var tenantId: String?
    var idToken: String?
    var sessionInfo: String?
    var code: String?
    var phoneNumber: String?
    var temporaryProof: String?
}
