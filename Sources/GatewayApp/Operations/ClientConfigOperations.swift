import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// What a client SDK reads about its project before it signs anyone in: `GET v1/projects` (the
/// authorized domains a web sign-in may return to), `GET v1/recaptchaParams` (the reCAPTCHA site
/// key the web SDK renders its verifier with before an SMS) and `GET v2/recaptchaConfig` (whether
/// reCAPTCHA Enterprise protects sign-in: never here, so every provider's enforcement is `OFF` and
/// the SDKs go on with their `ApplicationVerifier`, whose token arrives as `recaptchaToken`).
struct ClientConfigOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let projectNumber: String
    let recaptchaSiteKey: String?

    /// The Auth emulator's site key (firebase-tools `src/emulator/auth/operations.ts`,
    /// `getRecaptchaParams`): development mode's, where no widget is ever rendered.
    static let developmentSiteKey = "Fake-key__Do-not-send-this-to-Recaptcha_"

    func project(_ request: PublicRequest) async throws -> JSONValue {
        let projectId = request.callerProjectId
        let settings = try await scopeSettings.enabled(projectId: projectId, tenantId: nil, requestID: request.requestID)
        // As Identity Platform answers: the project's number as `projectId`.
        return ["projectId": .string(projectNumber), "authorizedDomains": .array(settings.authorizedDomains.map(JSONValue.string))]
    }

    func recaptchaParams(_ request: PublicRequest) async throws -> JSONValue {
        _ = try await scopeSettings.enabled(projectId: request.callerProjectId, tenantId: nil, requestID: request.requestID)
        var answer: [String: JSONValue] = ["kind": "identitytoolkit#GetRecaptchaParamResponse"]
        if let recaptchaSiteKey { answer["recaptchaSiteKey"] = .string(recaptchaSiteKey) }
        return .object(answer)
    }

    /// `GET v2/passwordPolicy`: the scope's policy as the SDKs' `validatePassword` reads it.
    func passwordPolicy(_ request: PublicRequest) async throws -> JSONValue {
        let tenantId = request.query["tenantId"].flatMap { $0.isEmpty ? nil : $0 }
        let settings = try await scopeSettings.enabled(projectId: request.callerProjectId, tenantId: tenantId, requestID: request.requestID)
        return PasswordPolicyDocument.published(settings.passwordPolicy ?? .unset)
    }

    func recaptchaConfig(_ request: PublicRequest) async throws -> JSONValue {
        let tenantId = request.query["tenantId"].flatMap { $0.isEmpty ? nil : $0 }
        _ = try await scopeSettings.enabled(projectId: request.callerProjectId, tenantId: tenantId, requestID: request.requestID)
        let providers = ["EMAIL_PASSWORD_PROVIDER", "PHONE_PROVIDER"]
        // The web SDK keeps a config only when it names a key (`projects/<p>/keys/<k>`): without one
        // it logs a warning and asks again before every phone call (firebase-js-sdk
        // `packages/auth/src/platform_browser/recaptcha/recaptcha.ts`, `RecaptchaConfig`). With every
        // provider `OFF` the key is never used to load reCAPTCHA Enterprise.
        return [
            "recaptchaKey": .string("projects/\(projectNumber)/keys/\(recaptchaSiteKey ?? "enforcement-off")"),
            "recaptchaEnforcementState": .array(
                providers.map { ["provider": .string($0), "enforcementState": "OFF"] }
            ),
        ]
    }
}
