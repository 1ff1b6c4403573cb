import APNsPush
import AsyncHTTPClient
import Configuration
import Foundation
import Logging
import PluginKit
import PostgresNIO
import ServiceKit
import TenantStore
import VerifierPlayIntegrity
import VerifierRecaptcha

/// The one list of app verifiers, in the order they are asked, each present when configured:
/// the development test token (development mode unless `appVerification.testToken.enabled` says
/// otherwise), reCAPTCHA (`appVerification.recaptcha.*`), Play Integrity
/// (`appVerification.playIntegrity.*`), iOS receipts (always: they only pass with a push the
/// APNs sender delivered).
enum AppVerifiers {
    /// `appVerification.playIntegrity.maximumAgeSeconds`: how old a verdict may be; also how long
    /// a used token is remembered (it is refused as stale after that).
    static func playIntegrityMaximumAge(_ reader: ConfigReader) -> Duration {
        .seconds(max(1, reader.int(forKey: "appVerification.playIntegrity.maximumAgeSeconds", default: 300)))
    }

    static func configured(
        _ reader: ConfigReader, mode: DeploymentMode, outside: OutsideHTTPClients, database: Database, logger: Logger
    ) throws -> [any AppVerifier] {
        var verifiers: [any AppVerifier] = []
        if reader.bool(forKey: "appVerification.testToken.enabled", default: mode == .development) {
            verifiers.append(
                DevelopmentAppVerifier(testToken: reader.string(forKey: "appVerification.testToken", default: "test-recaptcha-token"))
            )
        }
        let projectSecrets = perProject(reader.stringArray(forKey: "appVerification.recaptcha.projects", isSecret: true, default: []))
        let defaultSecret = reader.string(forKey: "appVerification.recaptcha.secret", isSecret: true)
        if defaultSecret != nil || !projectSecrets.isEmpty {
            verifiers.append(
                RecaptchaVerifier(
                    configuration: .init(
                        endpoint: reader.string(
                            forKey: "appVerification.recaptcha.endpoint", default: "https://www.google.com/recaptcha/api/siteverify"
                        ),
                        secrets: projectSecrets, defaultSecret: defaultSecret,
                        action: reader.string(forKey: "appVerification.recaptcha.action"),
                        minimumScore: reader.double(forKey: "appVerification.recaptcha.minimumScore", default: 0.5),
                        timeout: .milliseconds(reader.int(forKey: "appVerification.recaptcha.timeoutMs", default: 5000))
                    ),
                    client: try outside.client(extraTrustRootsFile: reader.string(forKey: "appVerification.recaptcha.trustRoots"))
                )
            )
        }
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
