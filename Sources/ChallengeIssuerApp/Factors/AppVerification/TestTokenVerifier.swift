import PluginKit

/// The test token (`appVerification.testToken.enabled`, off by default): a reCAPTCHA token equal to
/// the configured one (`test-recaptcha-token` by default) passes; any other token is left to the next
/// verifier. For load tests of a production-mode stack, whose SMS requests cannot solve a captcha.
struct TestTokenVerifier: AppVerifier {
    let testToken: String

    var name: String { "test-token" }

    func verify(_ proof: AppProof, context: AppVerificationContext) async -> AppVerdict {
        guard let token = proof.recaptchaToken, !token.isEmpty else { return .notApplicable }
        let (a, b) = (Array(token.utf8), Array(testToken.utf8))
        guard a.count == b.count else { return .notApplicable }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0 ? .verified : .notApplicable
    }
}
