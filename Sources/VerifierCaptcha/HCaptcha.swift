import PluginKit

/// hCaptcha (`https://api.hcaptcha.com/siteverify`): `success`, the `hostname` among the scope's
/// authorized domains, and the token solved for our site key when one is configured (sent as
/// `sitekey`, which hCaptcha checks). hCaptcha Enterprise answers a risk `score` (0 is no risk,
/// 1 is certain abuse): above `maximumScore`, when set, fails.
public struct HCaptcha: CaptchaService {
    public static let endpoint = "https://api.hcaptcha.com/siteverify"

    public let secrets: CaptchaSecrets
    let siteverify: Siteverify
    let siteKey: String?
    let maximumScore: Double?

    public init(secrets: CaptchaSecrets, siteverify: Siteverify, siteKey: String?, maximumScore: Double?) {
        (self.secrets, self.siteverify, self.siteKey, self.maximumScore) = (secrets, siteverify, siteKey, maximumScore)
    }

    public var name: String { "hcaptcha" }

    public func judge(token: String, secret: String, context: AppVerificationContext) async -> AppVerdict {
        switch await siteverify.check(secret: secret, token: token, extra: siteKey.map { [("sitekey", $0)] } ?? []) {
        case .unavailable(let reason): return .unavailable(reason: reason)
        case .failure: return .rejected(captcha: true)
        case .success(let answer):
            guard Siteverify.solvedOnAuthorizedHost(answer, context) else { return .rejected(captcha: true) }
            if let maximumScore, let score = answer["score"] as? Double, score > maximumScore { return .rejected(captcha: true) }
            return .verified
        }
    }
}
