import Contracts
import JSONRPC

extension IssueSession.Result {
    /// An answer that signs someone in: the operation's own `members` and the session's tokens.
    /// `expiresIn` goes with the v1 answers and `mfaEnrollment:withdraw`; the v2 finalize answers
    /// carry the two tokens alone (contract §2.9, §2.12).
    func answer(expiresIn: Bool = true, _ members: [String: JSONValue] = [:]) -> JSONValue {
        var answer = members
        answer["idToken"] = .string(idToken)
        answer["refreshToken"] = .string(refreshToken)
        if expiresIn { answer["expiresIn"] = .string(self.expiresIn) }
        return .object(answer)
    }
}
