import PluginKit

/// The development app verifier (decision 14): a reCAPTCHA token equal to the configured test token
/// (`test-recaptcha-token` by default) passes, any other reCAPTCHA token fails. Registered in
/// development mode only; the real verifiers (reCAPTCHA, iOS receipts, Android attestation) are
/// plugins of their own.
struct DevelopmentAppVerifier: AppVerifier {
    let testToken: String

    var name: String { "development" }

    func verify(_ proof: AppProof) async -> AppVerdict {
        guard let token = proof.recaptchaToken, !token.isEmpty else { return .notApplicable }
        let (a, b) = (Array(token.utf8), Array(testToken.utf8))
        guard a.count == b.count else { return .rejected(captcha: true) }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0 ? .verified : .rejected(captcha: true)
    }
}
