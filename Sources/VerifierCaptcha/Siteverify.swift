import AsyncHTTPClient
import PluginHTTP
import PluginKit

/// The siteverify call all three services share: a form POST of the secret and the token (and
/// whatever the service takes besides), answered with a JSON object whose `success` is the first
/// word. The service checks the rest of the answer itself.
public struct Siteverify: Sendable {
    public let endpoint: String
    public let timeout: Duration
    let client: HTTPClient

    public init(endpoint: String, timeout: Duration, client: HTTPClient) {
        self.endpoint = endpoint
        self.timeout = timeout
        self.client = client
    }

    public enum Outcome {
        /// The service vouched for the token (`success: true`); its whole answer.
        case success([String: Any])
        case failure
        case unavailable(String)
    }

    public func check(secret: String, token: String, extra: [(String, String)] = []) async -> Outcome {
        do {
            let response = try await OutsideCall(client: client, timeout: timeout).post(
                endpoint, headers: [("content-type", "application/x-www-form-urlencoded")],
                body: OutsideCall.form([("secret", secret), ("response", token)] + extra)
            )
            guard response.status == 200, let answer = response.jsonObject else {
                return .unavailable("siteverify answered HTTP \(response.status)")
            }
            return answer["success"] as? Bool == true ? .success(answer) : .failure
        } catch {
            return .unavailable("siteverify unreachable (\(type(of: error)))")
        }
    }

    /// The token was solved on one of the scope's authorized domains (any host when it has none).
    public static func solvedOnAuthorizedHost(_ answer: [String: Any], _ context: AppVerificationContext) -> Bool {
        guard !context.authorizedDomains.isEmpty else { return true }
        guard let host = (answer["hostname"] as? String)?.lowercased() else { return false }
        return context.authorizedDomains.contains { $0.lowercased() == host }
    }
}
