import AsyncHTTPClient
import Foundation
import PluginHTTP
import PluginKit

/// reCAPTCHA tokens checked against a siteverify-compatible endpoint (Google's
/// `https://www.google.com/recaptcha/api/siteverify` or a compatible one): `success`, the `hostname`
/// among the project's authorized domains, the expected `action` and a `score` at or above the
/// threshold. Nothing is cached: every token goes to the endpoint, which refuses reuse itself.
public struct RecaptchaVerifier: AppVerifier {
    public struct Configuration: Sendable {
        public var endpoint: String
        /// The secret per project; `defaultSecret` for the others.
        public var secrets: [String: String]
        public var defaultSecret: String?
        /// When set, the answer's `action` must equal it.
        public var action: String?
        /// Scores (reCAPTCHA v3 / Enterprise) below this fail.
        public var minimumScore: Double
        public var timeout: Duration

        public init(
            endpoint: String, secrets: [String: String], defaultSecret: String?, action: String?, minimumScore: Double,
            timeout: Duration
        ) {
            self.endpoint = endpoint
            self.secrets = secrets
            self.defaultSecret = defaultSecret
            self.action = action
            self.minimumScore = minimumScore
            self.timeout = timeout
        }
    }

    let configuration: Configuration
    let client: HTTPClient

    public init(configuration: Configuration, client: HTTPClient) {
        self.configuration = configuration
        self.client = client
    }

    public var name: String { "recaptcha" }

    public func verify(_ proof: AppProof, context: AppVerificationContext) async -> AppVerdict {
        guard let token = proof.recaptchaToken, !token.isEmpty else { return .notApplicable }
        guard token.utf8.count <= 8192, let secret = configuration.secrets[context.projectId] ?? configuration.defaultSecret else {
            return .rejected(captcha: true)
        }
        let answer: [String: Any]
        do {
            let response = try await OutsideCall(client: client, timeout: configuration.timeout).post(
                configuration.endpoint, headers: [("content-type", "application/x-www-form-urlencoded")],
                body: OutsideCall.form([("secret", secret), ("response", token)])
            )
            guard response.status == 200, let object = response.jsonObject else {
                return .unavailable(reason: "siteverify answered HTTP \(response.status)")
            }
            answer = object
        } catch {
            return .unavailable(reason: "siteverify unreachable (\(type(of: error)))")
        }
        guard answer["success"] as? Bool == true else { return .rejected(captcha: true) }
        if !context.authorizedDomains.isEmpty {
            guard let host = (answer["hostname"] as? String)?.lowercased(),
                context.authorizedDomains.contains(where: { $0.lowercased() == host })
            else { return .rejected(captcha: true) }
        }
        if let action = configuration.action, answer["action"] as? String != action { return .rejected(captcha: true) }
        if let score = answer["score"] as? Double, score < configuration.minimumScore { return .rejected(captcha: true) }
        return .verified
    }
}
