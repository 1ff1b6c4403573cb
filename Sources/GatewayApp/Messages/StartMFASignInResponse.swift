/// The answer of `v2/accounts/mfaSignIn:start`: the session the SMS code was sent in.
struct StartMFASignInResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2StartMfaSignInResponse"
    var phoneResponseInfo: StartMFAPhoneResponseInfo
}
