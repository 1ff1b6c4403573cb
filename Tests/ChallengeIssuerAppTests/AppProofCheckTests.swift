import JSONRPC
import Logging
import PluginKit
import Synchronization
import Testing

@testable import ChallengeIssuerApp

/// Whether an app may have an SMS sent (contract §2.8, decision 10), decided in process with
/// scripted verifiers; the real verifiers against their real protocol peers are in
/// client-tests/test_app_verification.py.
@Suite("App proof check")
struct AppProofCheckTests {
    /// A verifier that answers what it is told and counts its calls.
    final class ScriptedVerifier: AppVerifier, Sendable {
        let name: String
        let verdict: AppVerdict
        let calls = Atomic<Int>(0)

        init(_ name: String, _ verdict: AppVerdict) {
            self.name = name
            self.verdict = verdict
        }

        func verify(_ proof: AppProof, context: AppVerificationContext) async -> AppVerdict {
            calls.add(1, ordering: .relaxed)
            return verdict
        }
    }

    /// Attestation tokens spent so far (each works once).
    final class SpentTokens: Sendable {
        let tokens = Mutex<Set<String>>([])
        var uses: AppProofCheck.AttestationUses { .init { token in self.tokens.withLock { $0.insert(token).inserted } } }
    }

    static let context = AppVerificationContext(projectId: "demo-project", tenantId: nil, authorizedDomains: ["localhost"])
    static let recaptcha = AppProof(recaptchaToken: "token")

    /// The Identity Toolkit error `check` refuses with; `nil` when it passes; the RPC code otherwise.
    func outcome(
        _ verifiers: [any AppVerifier], _ proof: AppProof, spent: SpentTokens = SpentTokens(), emulator: Bool = false
    ) async -> String? {
        let check = AppProofCheck(verifiers: verifiers, attestations: spent.uses, logger: Logger(label: "test"), emulator: emulator)
        do {
            try await check.check(proof, context: Self.context)
            return nil
        } catch let error as RPCError {
            return error.identityToolkitError ?? error.code.rawValue.description
        } catch {
            return "\(error)"
        }
    }

    @Test("no proof at all is MISSING_APP_CREDENTIAL, before any verifier is asked")
    func missing() async {
        let verifier = ScriptedVerifier("recaptcha", .verified)
        #expect(await outcome([verifier], AppProof()) == "MISSING_APP_CREDENTIAL")
        #expect(verifier.calls.load(ordering: .relaxed) == 0)
    }

    @Test("the first verifier that handles the proof decides; later ones are not asked")
    func firstApplicableDecides() async {
        let later = ScriptedVerifier("later", .rejected(captcha: false))
        #expect(
            await outcome([ScriptedVerifier("skip", .notApplicable), ScriptedVerifier("ios", .verified), later], Self.recaptcha) == nil)
        #expect(later.calls.load(ordering: .relaxed) == 0)
        #expect(await outcome([ScriptedVerifier("recaptcha", .rejected(captcha: true))], Self.recaptcha) == "CAPTCHA_CHECK_FAILED")
        #expect(await outcome([ScriptedVerifier("ios", .rejected(captcha: false))], Self.recaptcha) == "INVALID_APP_CREDENTIAL")
    }

    @Test("a proof nobody handles is refused: as a failed reCAPTCHA when it carried one")
    func nobodyVouches() async {
        let none: [any AppVerifier] = [ScriptedVerifier("a", .notApplicable), ScriptedVerifier("b", .notApplicable)]
        #expect(await outcome(none, Self.recaptcha) == "CAPTCHA_CHECK_FAILED")
        #expect(await outcome(none, AppProof(iosReceipt: "receipt", iosSecret: "secret")) == "INVALID_APP_CREDENTIAL")
        #expect(await outcome([], Self.recaptcha) == "CAPTCHA_CHECK_FAILED")
    }

    @Test("a verifier that cannot be reached is the server's failure to deliver, not the client's mistake")
    func unavailable() async {
        let code = await outcome([ScriptedVerifier("recaptcha", .unavailable(reason: "timed out"))], Self.recaptcha)
        #expect(code == RPCErrorCode.deliveryFailed.rawValue.description)
    }

    @Test("a Play Integrity token works once; another verifier's proof is not spent")
    func attestationOnce() async {
        let spent = SpentTokens()
        let integrity: [any AppVerifier] = [ScriptedVerifier("play-integrity", .verified)]
        let proof = AppProof(playIntegrityToken: "attestation")
        #expect(await outcome(integrity, proof, spent: spent) == nil)
        #expect(await outcome(integrity, proof, spent: spent) == "INVALID_APP_CREDENTIAL")
        #expect(await outcome(integrity, AppProof(playIntegrityToken: "another"), spent: spent) == nil)
        let recaptcha: [any AppVerifier] = [ScriptedVerifier("recaptcha", .verified)]
        #expect(await outcome(recaptcha, Self.recaptcha, spent: spent) == nil)
        #expect(await outcome(recaptcha, Self.recaptcha, spent: spent) == nil)
    }

    /// Development mode as the Auth emulator: the iOS SDK in emulator mode sends no proof at all
    /// (firebase-ios-sdk `PhoneAuthProvider.swift`, `verifyInTestMode`), the web SDK a made-up token.
    @Test("in the emulator's development mode no proof is checked, and no verifier is asked")
    func emulatorChecksNothing() async {
        let refusing = ScriptedVerifier("recaptcha", .rejected(captcha: true))
        #expect(await outcome([refusing], AppProof(), emulator: true) == nil)
        #expect(await outcome([refusing], AppProof(recaptchaToken: String(repeating: "a", count: 50)), emulator: true) == nil)
        #expect(refusing.calls.load(ordering: .relaxed) == 0)
        #expect(await outcome([refusing], AppProof(recaptchaToken: "x")) == "CAPTCHA_CHECK_FAILED")
    }
}
