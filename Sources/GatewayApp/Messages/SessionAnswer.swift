import Contracts

/// An answer that may sign someone in: the v1 answers carry the session's two tokens and
/// `expiresIn` (seconds, int64 as a string) beside their own members (contract §2).
protocol SessionAnswer: DiscoveryMessage {
    var idToken: String? { get set }
    var refreshToken: String? { get set }
    var expiresIn: String? { get set }
}

extension SessionAnswer {
    /// This answer with `session`'s tokens.
    func carrying(_ session: IssueSession.Result) -> Self {
        var answer = self
        answer.idToken = session.idToken
        answer.refreshToken = session.refreshToken
        answer.expiresIn = session.expiresIn
        return answer
    }
}

/// The v2 finalize answers: the session's two tokens alone, no `expiresIn` (contract §2.9, §2.12).
protocol SessionTokensAnswer: DiscoveryMessage {
    init(idToken: String, refreshToken: String)
}

extension SessionTokensAnswer {
    init(_ session: IssueSession.Result) {
        self.init(idToken: session.idToken, refreshToken: session.refreshToken)
    }
}
