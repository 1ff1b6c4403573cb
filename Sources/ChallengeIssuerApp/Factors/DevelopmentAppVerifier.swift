import PluginKit

/// The development app verifier (decision 14): a reCAPTCHA token equal to the configured test token
/// (`test-recaptcha-token` by default) passes; any other token is left to the next verifier (a real
/// reCAPTCHA verifier, if one is configured). On by default in development mode only.
struct DevelopmentAppVerifier: AppVerifier {
    let testToken: String

    var name: String { "development" }

    func verify(_ proof: AppProof, context: AppVerificationContext) async -> AppVerdict {
        guard let token = proof.recaptchaToken, !token.isEmpty else { return .notApplicable }
        let (a, b) = (Array(token.utf8), Array(testToken.utf8))
        guard a.count == b.count else { return .notApplicable }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0 ? .verified : .notApplicable
    }
}
