import AsyncHTTPClient
import Crypto
import ExtrasBase64
import Foundation
import NIOSSL
import PluginHTTP
import PluginKit

/// Silent pushes through Apple's APNs provider API: HTTP/2 `POST <base>/3/device/<token>` with
/// token-based authentication (an ES256 provider JWT from the key id, team id and `.p8` key, renewed
/// every 40 minutes), `apns-push-type: background`, `apns-priority: 5` and the app's bundle id as
/// `apns-topic`. Failures are ``DeliveryFailed`` with the status and APNs' reason only.
public final class APNsPushSender: PushSender {
    public struct Configuration: Sendable {
        /// `https://api.push.apple.com` (production) and `https://api.sandbox.push.apple.com`.
        public var productionBaseURL: String
        public var sandboxBaseURL: String
        public var keyID: String
        public var teamID: String
        /// The `.p8` key's PEM text.
        public var privateKeyPEM: String
        public var bundleID: String
        /// Extra trusted CA certificates (PEM file), for a private APNs-compatible endpoint.
        public var trustRootsPath: String?
        public var timeout: Duration

        public init(
            productionBaseURL: String, sandboxBaseURL: String, keyID: String, teamID: String, privateKeyPEM: String,
            bundleID: String, trustRootsPath: String?, timeout: Duration
        ) {
            self.productionBaseURL = productionBaseURL
            self.sandboxBaseURL = sandboxBaseURL
            self.keyID = keyID
            self.teamID = teamID
            self.privateKeyPEM = privateKeyPEM
            self.bundleID = bundleID
            self.trustRootsPath = trustRootsPath
            self.timeout = timeout
        }
    }

    public struct InvalidKey: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "the APNs key is not a readable P-256 private key in PEM (.p8)" }
    }

    let configuration: Configuration
    let key: P256.Signing.PrivateKey
    let client: HTTPClient
    private let token: ProviderToken

    public init(configuration: Configuration) throws {
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: configuration.privateKeyPEM) else { throw InvalidKey() }
        self.configuration = configuration
        self.key = key
        var tls = TLSConfiguration.makeClientConfiguration()
        if let roots = configuration.trustRootsPath {
            tls.trustRoots = .file(roots)
        }
        var settings = HTTPClient.Configuration(tlsConfiguration: tls)
        settings.httpVersion = .automatic
        // APNs never redirects; a redirect would carry the provider token elsewhere (issue 57, F-5).
        settings.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
        token = ProviderToken()
    }

    deinit {
        try? client.syncShutdown()
    }

    public var name: String { "apns" }

    public func sendSilentPush(deviceToken: String, sandbox: Bool, topic: String?, payload: [UInt8]) async throws {
        guard !deviceToken.isEmpty, deviceToken.utf8.count <= 200,
            deviceToken.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) })
        else { throw DeliveryFailed("the device token is not hexadecimal") }
        let base = sandbox ? configuration.sandboxBaseURL : configuration.productionBaseURL
        let jwt = try await token.current(key: key, keyID: configuration.keyID, teamID: configuration.teamID)
        let response: OutsideCall.Answer
        do {
            response = try await OutsideCall(client: client, timeout: configuration.timeout, answerLimit: 16 * 1024).post(
                "\(base)/3/device/\(deviceToken)",
                headers: [
                    ("authorization", "bearer \(jwt)"), ("apns-push-type", "background"), ("apns-priority", "5"),
                    ("apns-topic", topic ?? configuration.bundleID), ("content-type", "application/json"),
                ],
                body: payload
            )
        } catch {
            throw DeliveryFailed("APNs unreachable (\(type(of: error)))")
        }
        guard response.status == 200 else {
            throw DeliveryFailed("APNs answered HTTP \(response.status) \(response.jsonObject?["reason"] as? String ?? "")")
        }
    }
}

/// The provider JWT, made again after 40 minutes (APNs refuses tokens older than an hour and
/// throttles ones renewed more often than every 20 minutes).
actor ProviderToken {
    private var cached: (token: String, madeAt: Date)?

    func current(key: P256.Signing.PrivateKey, keyID: String, teamID: String, now: Date = Date()) throws -> String {
        if let cached, now.timeIntervalSince(cached.madeAt) < 40 * 60 { return cached.token }
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": keyID], options: .sortedKeys)
        let claims = try JSONSerialization.data(
            withJSONObject: ["iss": teamID, "iat": Int(now.timeIntervalSince1970)], options: .sortedKeys)
        let signingInput = Self.base64URL(header) + "." + Self.base64URL(claims)
        let signature = try key.signature(for: Data(signingInput.utf8))
        let token = signingInput + "." + Self.base64URL(signature.rawRepresentation)
        cached = (token, now)
        return token
    }

    static func base64URL(_ data: Data) -> String {
        Base64.encodeToString(bytes: data, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }
}
