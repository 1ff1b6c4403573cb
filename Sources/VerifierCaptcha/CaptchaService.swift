import PluginKit

/// One captcha service a web app can solve before an SMS (reCAPTCHA, hCaptcha, Cloudflare
/// Turnstile): its secrets per scope, and its judgement of a token with the scope's secret. The
/// token always arrives as `recaptchaToken`, the only member the SDKs' `ApplicationVerifier` fills.
public protocol CaptchaService: Sendable {
    var name: String { get }
    var secrets: CaptchaSecrets { get }
    func judge(token: String, secret: String, context: AppVerificationContext) async -> AppVerdict
}
