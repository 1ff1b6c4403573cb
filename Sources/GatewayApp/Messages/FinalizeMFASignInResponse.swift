import Contracts

/// The answer of `v2/accounts/mfaSignIn:finalize`: the session's two tokens, no `expiresIn`
/// (contract §2.12).
struct FinalizeMFASignInResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2FinalizeMfaSignInResponse"
    var idToken: String
    var refreshToken: String
}

extension FinalizeMFASignInResponse {
    init(_ session: IssueSession.Result) {
        self.init(idToken: session.idToken, refreshToken: session.refreshToken)
    }
}
