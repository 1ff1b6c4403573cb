import Contracts

/// The answer of `v2/accounts/mfaEnrollment:finalize`: the new session's two tokens, no
/// `expiresIn` (contract §2.9); every other session ended with the enrollment.
struct FinalizeMFAEnrollmentResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2FinalizeMfaEnrollmentResponse"
    var idToken: String
    var refreshToken: String
}

extension FinalizeMFAEnrollmentResponse {
    init(_ session: IssueSession.Result) {
        self.init(idToken: session.idToken, refreshToken: session.refreshToken)
    }
}
