import AsyncHTTPClient
import Foundation
import NIOCore
import PluginKit

/// Android attestation: a `playIntegrityToken` (or a legacy `safetyNetToken`) decoded by a Play
/// Integrity compatible endpoint (`POST <endpoint>/v1/<package>:decodeIntegrityToken`, bearer
/// credential), then required to be the configured package, recognised by Play, on a device that
/// meets basic integrity. Anything else is `INVALID_APP_CREDENTIAL`.
public struct PlayIntegrityVerifier: AppVerifier {
    public struct Configuration: Sendable {
        public var endpoint: String
        public var credential: String
        /// The app's package; `projectPackageNames` overrides it per project.
        public var packageName: String
        public var projectPackageNames: [String: String]
        public var timeout: Duration

        public init(
            endpoint: String, credential: String, packageName: String, projectPackageNames: [String: String] = [:], timeout: Duration
        ) {
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
        var request = HTTPClientRequest(url: "\(base)/v1/\(package):decodeIntegrityToken")
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer \(configuration.credential)")
        request.headers.add(name: "content-type", value: "application/json")
        guard let body = try? JSONSerialization.data(withJSONObject: ["integrity_token": token]) else {
            return .rejected(captcha: false)
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        let answer: [String: Any]
        do {
            let timeout = TimeAmount.nanoseconds(
                configuration.timeout.components.seconds * 1_000_000_000 + configuration.timeout.components.attoseconds / 1_000_000_000
            )
            let response = try await client.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: 64 * 1024)
            if response.status == .badRequest { return .rejected(captcha: false) }
            guard response.status == .ok,
                let object = try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]
            else { return .unavailable(reason: "integrity endpoint answered HTTP \(response.status.code)") }
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
            (device?["deviceRecognitionVerdict"] as? [String])?.contains(where: { $0.hasPrefix("MEETS_") }) == true
        else { return .rejected(captcha: false) }
        return .verified
    }
}
