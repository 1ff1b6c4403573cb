import APNsPush
import AsyncHTTPClient
import Configuration
import Foundation
import Logging
import PluginKit
import PostgresNIO
import ServiceKit
import ServiceTransport
import TenantStore
import VerifierCaptcha
import VerifierPlayIntegrity

/// The one list of app verifiers, in the order they are asked, each present when configured:
/// the test token (`appVerification.testToken.enabled`), the captcha services (reCAPTCHA, hCaptcha,
/// Turnstile: `appVerification.<service>.*`), Play Integrity (`appVerification.playIntegrity.*`),
/// iOS receipts (always: they only pass with a push the APNs sender delivered).
enum AppVerifiers {
    /// `appVerification.emulator`: whether development mode checks no app proof, as the Auth
    /// emulator (the default there, so that every stock SDK's emulator mode can send an SMS). A
    /// production service refuses to start with it rather than ignore it.
    static func emulator(_ reader: ConfigReader, mode: DeploymentMode) throws -> Bool {
        let configured = reader.bool(forKey: "appVerification.emulator")
        if mode == .production, configured == true {
            throw InvalidSetting(key: "appVerification.emulator", reason: "development mode only: production checks every app proof")
        }
        return mode == .development && configured ?? true
    }

    /// `appVerification.playIntegrity.maximumAgeSeconds`: how old a verdict may be; also how long
    /// a used token is remembered (it is refused as stale after that).
    static func playIntegrityMaximumAge(_ reader: ConfigReader) -> Duration {
        .seconds(max(1, reader.int(forKey: "appVerification.playIntegrity.maximumAgeSeconds", default: 300)))
    }

    static func configured(
        _ reader: ConfigReader, mode: DeploymentMode, outside: OutsideHTTPClients, database: Database, logger: Logger
    ) throws -> [any AppVerifier] {
        var verifiers: [any AppVerifier] = []
        if reader.bool(forKey: "appVerification.testToken.enabled", default: false) {
            verifiers.append(
                TestTokenVerifier(testToken: reader.string(forKey: "appVerification.testToken", default: "test-recaptcha-token"))
            )
        }
        let captchas = try captchaServices(reader, outside: outside)
        if !captchas.isEmpty { verifiers.append(CaptchaVerifier(services: captchas)) }
        let packages = perProject(reader.stringArray(forKey: "appVerification.playIntegrity.projects", default: []))
        if let credential = reader.string(forKey: "appVerification.playIntegrity.credential", isSecret: true),
            let package = reader.string(forKey: "appVerification.playIntegrity.packageName")
        {
            verifiers.append(
                PlayIntegrityVerifier(
                    configuration: .init(
                        endpoint: reader.string(
                            forKey: "appVerification.playIntegrity.endpoint", default: "https://playintegrity.googleapis.com"),
                        credential: credential, packageName: package, projectPackageNames: packages,
                        timeout: .milliseconds(reader.int(forKey: "appVerification.playIntegrity.timeoutMs", default: 5000)),
                        maximumAge: playIntegrityMaximumAge(reader)
                    ),
                    client: try outside.client(
                        extraTrustRootsFile: reader.string(forKey: "appVerification.playIntegrity.trustRoots")
                    )
                )
            )
        }
        verifiers.append(IosReceiptVerifier(client: database, logger: logger))
        return verifiers
    }

    /// The captcha services with a secret configured, in this order on a tie (``CaptchaVerifier``):
    /// reCAPTCHA (`appVerification.recaptcha.*`), hCaptcha (`….hcaptcha.*`), Turnstile (`….turnstile.*`).
    static func captchaServices(_ reader: ConfigReader, outside: OutsideHTTPClients) throws -> [any CaptchaService] {
        func secrets(_ service: String) -> CaptchaSecrets {
            CaptchaSecrets(
                scoped: perProject(
                    reader.stringArray(forKey: ConfigKey("appVerification.\(service).projects"), isSecret: true, default: [])),
                defaultSecret: reader.string(forKey: ConfigKey("appVerification.\(service).secret"), isSecret: true)
            )
        }
        func siteverify(_ service: String, endpoint: String) throws -> Siteverify {
            Siteverify(
                endpoint: reader.string(forKey: ConfigKey("appVerification.\(service).endpoint"), default: endpoint),
                timeout: .milliseconds(reader.int(forKey: ConfigKey("appVerification.\(service).timeoutMs"), default: 5000)),
                client: try outside.client(extraTrustRootsFile: reader.string(forKey: ConfigKey("appVerification.\(service).trustRoots")))
            )
        }
        var services: [any CaptchaService] = []
        if case let recaptcha = secrets("recaptcha"), !recaptcha.isEmpty {
            services.append(
                Recaptcha(
                    secrets: recaptcha, siteverify: try siteverify("recaptcha", endpoint: Recaptcha.endpoint),
                    action: reader.string(forKey: "appVerification.recaptcha.action"),
                    minimumScore: reader.double(forKey: "appVerification.recaptcha.minimumScore", default: 0.5)
                )
            )
        }
        if case let hcaptcha = secrets("hcaptcha"), !hcaptcha.isEmpty {
            services.append(
                HCaptcha(
                    secrets: hcaptcha, siteverify: try siteverify("hcaptcha", endpoint: HCaptcha.endpoint),
                    siteKey: reader.string(forKey: "appVerification.hcaptcha.siteKey"),
                    maximumScore: reader.double(forKey: "appVerification.hcaptcha.maximumScore")
                )
            )
        }
        if case let turnstile = secrets("turnstile"), !turnstile.isEmpty {
            services.append(
                Turnstile(
                    secrets: turnstile, siteverify: try siteverify("turnstile", endpoint: Turnstile.endpoint),
                    action: reader.string(forKey: "appVerification.turnstile.action")
                )
            )
        }
        return services
    }

    /// `projectId=value` entries as a map (the first entry of a project wins).
    static func perProject(_ entries: [String]) -> [String: String] {
        Dictionary(
            entries.compactMap { entry in
                let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            },
            uniquingKeysWith: { first, _ in first }
        )
    }

    /// The APNs sender for `verifyIosClient`, when `appVerification.apns.*` is configured.
    static func pushSender(_ reader: ConfigReader, logger: Logger) throws -> (any PushSender)? {
        guard let keyID = reader.string(forKey: "appVerification.apns.keyId"),
            let teamID = reader.string(forKey: "appVerification.apns.teamId"),
            let keyFile = reader.string(forKey: "appVerification.apns.keyFile"),
            let bundleID = reader.string(forKey: "appVerification.apns.bundleId")
        else { return nil }
        guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
            throw APNsPushSender.InvalidKey()
        }
        return try APNsPushSender(
            configuration: .init(
                productionBaseURL: reader.string(forKey: "appVerification.apns.productionUrl", default: "https://api.push.apple.com"),
                sandboxBaseURL: reader.string(forKey: "appVerification.apns.sandboxUrl", default: "https://api.sandbox.push.apple.com"),
                keyID: keyID, teamID: teamID, privateKeyPEM: pem, bundleID: bundleID,
                trustRootsPath: reader.string(forKey: "appVerification.apns.trustRoots"),
                timeout: .milliseconds(reader.int(forKey: "appVerification.apns.timeoutMs", default: 10_000))
            )
        )
    }
}
