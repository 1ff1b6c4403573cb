/// The answer of `v1/accounts:sendVerificationCode`: the session the SMS code was sent in.
struct SendVerificationCodeResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV1SendVerificationCodeResponse"
    var sessionInfo: String
}
