import PluginKit

/// The captcha services as one app verifier: a token goes to the service whose secret matches the
/// request's scope most closely (``CaptchaSecrets/Match``; the first configured on a tie), and only
/// to it, so a tenant on Turnstile never has its tokens sent to reCAPTCHA. A scope no service has a
/// secret for is not this verifier's (the check then refuses the token as a failed captcha).
public struct CaptchaVerifier: AppVerifier {
    let services: [any CaptchaService]

    public init(services: [any CaptchaService]) {
        self.services = services
    }

    public var name: String { "captcha" }

    /// The service and secret that judge tokens of this scope.
    public func service(for context: AppVerificationContext) -> (service: any CaptchaService, secret: String)? {
        var chosen: (service: any CaptchaService, secret: String, match: CaptchaSecrets.Match)?
        for service in services {
            guard let (secret, match) = service.secrets.secret(for: context), chosen.map({ match > $0.match }) ?? true else { continue }
            chosen = (service, secret, match)
        }
        return chosen.map { ($0.service, $0.secret) }
    }

    public func verify(_ proof: AppProof, context: AppVerificationContext) async -> AppVerdict {
        guard let token = proof.recaptchaToken, !token.isEmpty, let (service, secret) = service(for: context) else {
            return .notApplicable
        }
        // Every service's tokens are far shorter (Turnstile's at most 2,048 characters).
        guard token.utf8.count <= 8192 else { return .rejected(captcha: true) }
        switch await service.judge(token: token, secret: secret, context: context) {
        case .unavailable(let reason): return .unavailable(reason: "\(service.name): \(reason)")
        case let verdict: return verdict
        }
    }
}
