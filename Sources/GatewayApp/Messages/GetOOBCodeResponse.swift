/// The answer of `v1/accounts:sendOobCode`: the address written to, and for an admin's
/// `returnOobLink` the code and link instead of a mail.
struct GetOOBCodeResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1GetOobCodeResponse"
    var kind = "identitytoolkit#GetOobConfirmationCodeResponse"
    var email: String
    var oobCode: String?
    var oobLink: String?
}
