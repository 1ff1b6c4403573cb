import AsyncHTTPClient
import Crypto
import Foundation
import PluginHTTP
import PluginKit

/// Android attestation: a `playIntegrityToken` (or a legacy `safetyNetToken`) decoded by a Play
/// Integrity compatible endpoint (`POST <endpoint>/v1/<package>:decodeIntegrityToken`, bearer
/// credential), then required to be the configured package, recognised by Play, on a device that
/// meets basic integrity, and — so that a verdict cannot be replayed for another request — bound
/// to this request and fresh:
/// - `requestDetails.requestHash` (standard requests) or `requestDetails.nonce` (classic requests)
///   must be ``binding(phoneNumber:)``, the SHA-256 of the E.164 number the SMS goes to, base64url
///   without padding: the app computes it when it asks Play for the token;
/// - `requestDetails.timestampMillis` must be within `maximumAge` (and not more than a minute ahead).
/// challenge-issuer also accepts each token once. Anything else is `INVALID_APP_CREDENTIAL`.
public struct PlayIntegrityVerifier: AppVerifier {
    public struct Configuration: Sendable {
        public var endpoint: String
        public var credential: String
        /// The app's package; `projectPackageNames` overrides it per project.
        public var packageName: String
        public var projectPackageNames: [String: String]
        public var timeout: Duration
        /// How old a verdict may be (`requestDetails.timestampMillis`).
        public var maximumAge: Duration

        public init(
            endpoint: String, credential: String, packageName: String, projectPackageNames: [String: String] = [:], timeout: Duration,
            maximumAge: Duration = .seconds(300)
        ) {
            self.maximumAge = maximumAge
            self.projectPackageNames = projectPackageNames
            self.endpoint = endpoint
            self.credential = credential
            self.packageName = packageName
            self.timeout = timeout
        }
    }

    let configuration: Configuration
    let client: HTTPClient

    public init(configuration: Configuration, client: HTTPClient) {
        self.configuration = configuration
        self.client = client
    }

    public var name: String { "play-integrity" }

    public func verify(_ proof: AppProof, context: AppVerificationContext) async -> AppVerdict {
        guard let token = proof.playIntegrityToken ?? proof.safetyNetToken, !token.isEmpty else { return .notApplicable }
        guard token.utf8.count <= 16384 else { return .rejected(captcha: false) }
        let base = configuration.endpoint.hasSuffix("/") ? String(configuration.endpoint.dropLast()) : configuration.endpoint
        let packageName = configuration.projectPackageNames[context.projectId] ?? configuration.packageName
        let package = packageName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
        guard let body = try? JSONSerialization.data(withJSONObject: ["integrity_token": token]) else {
            return .rejected(captcha: false)
        }
        let answer: [String: Any]
        do {
            let response = try await OutsideCall(client: client, timeout: configuration.timeout).post(
                "\(base)/v1/\(package):decodeIntegrityToken",
                headers: [("authorization", "Bearer \(configuration.credential)"), ("content-type", "application/json")],
                body: Array(body)
            )
            if response.status == 400 { return .rejected(captcha: false) }
            guard response.status == 200, let object = response.jsonObject else {
                return .unavailable(reason: "integrity endpoint answered HTTP \(response.status)")
            }
            answer = object
        } catch {
            return .unavailable(reason: "integrity endpoint unreachable (\(type(of: error)))")
        }
        let payload = answer["tokenPayloadExternal"] as? [String: Any]
        let details = payload?["requestDetails"] as? [String: Any]
        let app = payload?["appIntegrity"] as? [String: Any]
        let device = payload?["deviceIntegrity"] as? [String: Any]
        guard details?["requestPackageName"] as? String == packageName,
            app?["appRecognitionVerdict"] as? String == "PLAY_RECOGNIZED",
            (device?["deviceRecognitionVerdict"] as? [String])?.contains(where: { $0.hasPrefix("MEETS_") }) == true,
            let number = context.phoneNumber,
            Self.matches(details?["requestHash"] ?? details?["nonce"], Self.binding(phoneNumber: number)),
            let issued = Self.milliseconds(details?["timestampMillis"]),
            isFresh(issuedAtMilliseconds: issued, now: Date())
        else { return .rejected(captcha: false) }
        return .verified
    }

    /// What a token for an SMS to `phoneNumber` carries as its request hash or nonce.
    public static func binding(phoneNumber: String) -> String {
        Data(SHA256.hash(data: Data(phoneNumber.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func matches(_ value: Any?, _ expected: String) -> Bool {
        guard let text = value as? String else { return false }
        return text.replacingOccurrences(of: "=", with: "") == expected
    }

    static func milliseconds(_ value: Any?) -> Int64? {
        switch value {
        case let text as String: Int64(text)
        case let number as NSNumber: number.int64Value
        default: nil
        }
    }

    func isFresh(issuedAtMilliseconds issued: Int64, now: Date) -> Bool {
        let nowMilliseconds = Int64(now.timeIntervalSince1970 * 1000)
        let maximumAge = configuration.maximumAge.components.seconds * 1000
        return issued <= nowMilliseconds + 60_000 && nowMilliseconds - issued <= maximumAge
    }
}
