import IdentityToolkit
import JSONRPC
import Logging
import PluginKit
import ServiceKit

/// Whether the app asking for an SMS is one of the project's (contract §2.8, decision 10): the first
/// verifier that handles the proof decides, in the order configured; a proof nobody vouches for is
/// refused, as a failed reCAPTCHA when it carried one.
struct AppProofCheck: Sendable {
    let verifiers: [any AppVerifier]
    let attestations: AttestationUses
    let logger: Logger
    /// Development mode as the Auth emulator (decision 14, `appVerification.emulator`): no proof is
    /// checked, because no stock SDK in emulator mode sends one that could be (the web SDK's mock
    /// reCAPTCHA makes up a token, iOS sends none). Never in production (`AppVerifiers.emulator`).
    var emulator = false

    /// Spends an Android attestation's one use: `false` when the same token was used already.
    struct AttestationUses: Sendable {
        let spend: @Sendable (_ token: String) async throws -> Bool

        /// Once per token while it is fresh: its bucket refills only after `maximumAge`, when the
        /// verifier refuses the token as stale anyway.
        static func once(within maximumAge: Duration, limiter: RateLimiter) -> Self {
            let rule = RateLimiter.Rule(capacity: 1, refillPerSecond: 1 / Double(maximumAge.components.seconds))
            return Self { token in try await limiter.take("play-integrity:\(token)", rule: rule) }
        }
    }

    /// `MISSING_APP_CREDENTIAL` without proof; then the first verifier that handles the proof decides.
    func check(_ proof: AppProof, context: AppVerificationContext) async throws {
        if emulator { return }
        guard !proof.isEmpty else { throw ChallengeRejection.error(.missingAppCredential) }
        for verifier in verifiers {
            switch await verifier.verify(proof, context: context) {
            case .verified:
                // An Android attestation works once; the verifier checked it is fresh.
                if verifier.name == "play-integrity", let token = proof.playIntegrityToken ?? proof.safetyNetToken,
                    !(try await attestations.spend(token))
                {
                    throw ChallengeRejection.error(.invalidAppCredential)
                }
                return
            case .rejected(let captcha): throw ChallengeRejection.error(captcha ? .captchaCheckFailed : .invalidAppCredential)
            case .notApplicable: continue
            case .unavailable(let reason):
                logger.error("app verifier unavailable", metadata: ["verifier": "\(verifier.name)", "reason": "\(reason)"])
                throw RPCError(code: .deliveryFailed, message: "The \(verifier.name) verifier is unavailable")
            }
        }
        // Nobody vouched for it: a reCAPTCHA that no verifier accepted failed its check.
        if proof.recaptchaToken?.isEmpty == false { throw ChallengeRejection.error(.captchaCheckFailed) }
        throw ChallengeRejection.error(.invalidAppCredential)
    }
}
