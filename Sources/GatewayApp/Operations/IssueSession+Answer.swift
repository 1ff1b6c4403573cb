import Contracts
import JSONRPC

extension IssueSession.Result {
    /// An answer that signs someone in: the operation's own `members`, the session's tokens and
    /// `expiresIn` (the v1 answers, and `mfaEnrollment:withdraw` as the contract has it; the v2
    /// finalize answers are typed, `FinalizeMFASignInResponse`).
    func answer(_ members: [String: JSONValue] = [:]) -> JSONValue {
        var answer = members
        answer["idToken"] = .string(idToken)
        answer["refreshToken"] = .string(refreshToken)
        answer["expiresIn"] = .string(expiresIn)
        return .object(answer)
    }
}
