import Configuration
import PluginKit
import ServiceKit
import Synchronization
import Testing
import VerifierCaptcha

@testable import ChallengeIssuerApp

/// Which captcha service judges a web app's token (issue 58): the one whose secret is closest to
/// the request's scope. The services' siteverify calls against stand-ins are in
/// client-tests/test_production_web_sms.py.
@Suite("Captcha choice")
struct CaptchaChoiceTests {
    /// A service that vouches for every token and says which secret it was given.
    final class Judging: CaptchaService, Sendable {
        let name: String
        let secrets: CaptchaSecrets
        let judged = Mutex<[String]>([])

        init(_ name: String, scoped: [String: String] = [:], default secret: String? = nil) {
            self.name = name
            self.secrets = CaptchaSecrets(scoped: scoped, defaultSecret: secret)
        }

        func judge(token: String, secret: String, context: AppVerificationContext) async -> AppVerdict {
            judged.withLock { $0.append(secret) }
            return .verified
        }
    }

    static func context(_ projectId: String, _ tenantId: String? = nil) -> AppVerificationContext {
        AppVerificationContext(projectId: projectId, tenantId: tenantId, authorizedDomains: [])
    }

    @Test("a tenant's own service wins over its project's, which wins over a deployment-wide default")
    func closestScopeWins() {
        let recaptcha = Judging("recaptcha", default: "r")
        let hcaptcha = Judging("hcaptcha", scoped: ["p1": "h"])
        let turnstile = Judging("turnstile", scoped: ["p1/t1": "t", "p2": "t2"])
        let verifier = CaptchaVerifier(services: [recaptcha, hcaptcha, turnstile])
        #expect(verifier.service(for: Self.context("p1", "t1"))?.service.name == "turnstile")
        #expect(verifier.service(for: Self.context("p1", "t2"))?.service.name == "hcaptcha")
        #expect(verifier.service(for: Self.context("p1"))?.service.name == "hcaptcha")
        #expect(verifier.service(for: Self.context("p2"))?.secret == "t2")
        #expect(verifier.service(for: Self.context("p3"))?.service.name == "recaptcha")
        #expect(CaptchaVerifier(services: [hcaptcha]).service(for: Self.context("p3")) == nil)
    }

    @Test("a token goes to the chosen service only; a scope without one is left to the other verifiers")
    func onlyTheChosenJudges() async {
        let recaptcha = Judging("recaptcha", default: "r")
        let turnstile = Judging("turnstile", scoped: ["p1": "t"])
        let verifier = CaptchaVerifier(services: [recaptcha, turnstile])
        #expect(await verifier.verify(AppProof(recaptchaToken: "token"), context: Self.context("p1")) == .verified)
        #expect(recaptcha.judged.withLock { $0 }.isEmpty && turnstile.judged.withLock { $0 } == ["t"])
        #expect(await verifier.verify(AppProof(iosReceipt: "r", iosSecret: "s"), context: Self.context("p1")) == .notApplicable)
        let scoped = CaptchaVerifier(services: [turnstile])
        #expect(await scoped.verify(AppProof(recaptchaToken: "token"), context: Self.context("p9")) == .notApplicable)
        #expect(
            await scoped.verify(AppProof(recaptchaToken: String(repeating: "x", count: 9000)), context: Self.context("p1"))
                == .rejected(captcha: true))
    }

    @Test("the emulator's acceptance is development mode's default, can be turned off there, and stops a production start")
    func emulatorSetting() throws {
        func reader(_ values: [AbsoluteConfigKey: ConfigValue]) -> ConfigReader {
            ConfigReader(providers: [InMemoryProvider(values: values)])
        }
        let on: [AbsoluteConfigKey: ConfigValue] = ["appVerification.emulator": true]
        let off: [AbsoluteConfigKey: ConfigValue] = ["appVerification.emulator": false]
        #expect(try AppVerifiers.emulator(reader([:]), mode: .development))
        #expect(try !AppVerifiers.emulator(reader(off), mode: .development))
        #expect(try !AppVerifiers.emulator(reader([:]), mode: .production))
        #expect(try !AppVerifiers.emulator(reader(off), mode: .production))
        #expect(throws: InvalidSetting.self) { try AppVerifiers.emulator(reader(on), mode: .production) }
    }
}
