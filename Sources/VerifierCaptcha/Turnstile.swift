import PluginKit

/// Cloudflare Turnstile (`https://challenges.cloudflare.com/turnstile/v0/siteverify`): `success`
/// (Cloudflare refuses a token used before or older than five minutes), the `hostname` among the
/// scope's authorized domains, and the widget's `action` when one is expected. Its tokens are at most
/// 2,048 characters.
public struct Turnstile: CaptchaService {
    public static let endpoint = "https://challenges.cloudflare.com/turnstile/v0/siteverify"

    public let secrets: CaptchaSecrets
    let siteverify: Siteverify
    let action: String?

    public init(secrets: CaptchaSecrets, siteverify: Siteverify, action: String?) {
        (self.secrets, self.siteverify, self.action) = (secrets, siteverify, action)
    }

    public var name: String { "turnstile" }

    public func judge(token: String, secret: String, context: AppVerificationContext) async -> AppVerdict {
        guard token.utf8.count <= 2048 else { return .rejected(captcha: true) }
        switch await siteverify.check(secret: secret, token: token) {
        case .unavailable(let reason): return .unavailable(reason: reason)
        case .failure: return .rejected(captcha: true)
        case .success(let answer):
            guard Siteverify.solvedOnAuthorizedHost(answer, context) else { return .rejected(captcha: true) }
            if let action, answer["action"] as? String != action { return .rejected(captcha: true) }
            return .verified
        }
    }
}
