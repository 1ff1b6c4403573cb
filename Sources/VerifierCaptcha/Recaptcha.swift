import PluginKit

/// Google reCAPTCHA (v2, v3, or Enterprise keys through the legacy siteverify endpoint,
/// `https://www.google.com/recaptcha/api/siteverify`): `success`, the `hostname` among the scope's
/// authorized domains, the expected `action` and a `score` at or above the threshold. Nothing is
/// cached: every token goes to the endpoint, which refuses reuse itself.
public struct Recaptcha: CaptchaService {
    public static let endpoint = "https://www.google.com/recaptcha/api/siteverify"

    public let secrets: CaptchaSecrets
    let siteverify: Siteverify
    /// When set, the answer's `action` must equal it.
    let action: String?
    /// Scores (v3 and Enterprise: 1.0 is very likely a person) below this fail.
    let minimumScore: Double

    public init(secrets: CaptchaSecrets, siteverify: Siteverify, action: String?, minimumScore: Double) {
        (self.secrets, self.siteverify, self.action, self.minimumScore) = (secrets, siteverify, action, minimumScore)
    }

    public var name: String { "recaptcha" }

    public func judge(token: String, secret: String, context: AppVerificationContext) async -> AppVerdict {
        switch await siteverify.check(secret: secret, token: token) {
        case .unavailable(let reason): return .unavailable(reason: reason)
        case .failure: return .rejected(captcha: true)
        case .success(let answer):
            guard Siteverify.solvedOnAuthorizedHost(answer, context) else { return .rejected(captcha: true) }
            if let action, answer["action"] as? String != action { return .rejected(captcha: true) }
            if let score = answer["score"] as? Double, score < minimumScore { return .rejected(captcha: true) }
            return .verified
        }
    }
}
