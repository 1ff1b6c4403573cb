import AuthVocabulary
import Contracts
import Foundation
import JSONRPC
import ServiceKit

/// The claims of one event as Identity Platform sends them to a blocking function, in the
/// snake_case names the Firebase Functions SDKs read (`event_type`, `user_record`, …); session-token
/// adds `iss`, `aud`, `sub`, `iat` and `exp` when it signs them (docs/blocking-functions.md).
struct BlockingEvent: Sendable {
    let event: BlockingFunctionsConfig.Event
    let projectId: String
    let tenantId: String?
    /// The user the event is about (`sub`); `nil` for an SMS to a number nobody has yet.
    let localId: String?
    var claims: [String: JSONValue]

    init(
        _ event: BlockingFunctionsConfig.Event, projectId: String, tenantId: String?, account: Account?, signInMethod: String?,
        locale: String?
    ) {
        self.event = event
        self.projectId = projectId
        self.tenantId = tenantId
        localId = account?.localId
        var claims: [String: JSONValue] = [
            "event_id": .string(RandomIdentifier.make()),
            "event_type": .string(event.rawValue),
            "ip_address": .string(RequestOrigin.current?.clientAddress ?? ""),
            "user_agent": .string(RequestOrigin.current?.userAgent ?? ""),
        ]
        if let locale { claims["locale"] = .string(locale) }
        if let signInMethod { claims["sign_in_method"] = .string(signInMethod) }
        if let tenantId { claims["tenant_id"] = .string(tenantId) }
        if let account { claims["user_record"] = Self.userRecord(account, tenantId: tenantId) }
        self.claims = claims
    }

    /// An identity provider's sign-in: its profile, and the credentials the scope forwards.
    mutating func carrying(_ profile: ProviderProfile, forwarding forward: BlockingFunctionsConfig.ForwardInboundCredentials?) {
        if let raw = profile.rawUserInfo { claims["raw_user_info"] = .string(raw) }
        if forward?.idToken == true, let token = profile.oauthIdToken { claims["oauth_id_token"] = .string(token) }
        if forward?.accessToken == true, let token = profile.oauthAccessToken {
            claims["oauth_access_token"] = .string(token)
            if let expiresIn = profile.oauthExpireIn { claims["oauth_expires_in"] = .int(Int64(expiresIn)) }
        }
    }

    /// `UserRecord` as the SDKs decode it: times in milliseconds, `provider_data` always present.
    static func userRecord(_ account: Account, tenantId: String?) -> JSONValue {
        var record: [String: JSONValue] = [
            "uid": .string(account.localId), "email_verified": .bool(account.emailVerified), "disabled": .bool(account.disabled),
        ]
        record["email"] = account.email.map(JSONValue.string)
        record["display_name"] = account.displayName.map(JSONValue.string)
        record["photo_url"] = account.photoUrl.map(JSONValue.string)
        record["phone_number"] = account.phoneNumber.map(JSONValue.string)
        record["tenant_id"] = tenantId.map(JSONValue.string)
        var metadata: [String: JSONValue] = ["creation_time": .int(Int64(account.createdAt) ?? 0)]
        if let last = account.lastLoginAt.flatMap({ Int64($0) }) { metadata["last_sign_in_time"] = .int(last) }
        record["metadata"] = .object(metadata)
        record["provider_data"] = .array(providerData(account))
        if let text = account.customAttributes, case .object(let claims)? = try? JSONCoding.parse(Array(text.utf8)), !claims.isEmpty {
            record["custom_claims"] = .object(claims)
        }
        // Recovery codes are this server's fallback, not a factor a function should count.
        let factors = (account.mfaInfo ?? []).filter { $0.kind != .recoveryCode }
        if !factors.isEmpty {
            record["multi_factor"] = [
                "enrolled_factors": .array(
                    factors.map { factor in
                        var entry: [String: JSONValue] = [
                            "uid": .string(factor.mfaEnrollmentId), "factor_id": .string(factor.kind.rawValue),
                            "enrollment_time": .string(factor.enrolledAt),
                        ]
                        entry["display_name"] = factor.displayName.map(JSONValue.string)
                        entry["phone_number"] = factor.phoneNumber.map(JSONValue.string)
                        return .object(entry)
                    }
                )
            ]
        }
        return .object(record)
    }

    static func providerData(_ account: Account) -> [JSONValue] {
        var entries: [JSONValue] = []
        if let email = account.email, account.passwordSet ?? (account.signInProvider == .password) {
            entries.append(["uid": .string(email), "provider_id": .string(SignInProvider.password.rawValue), "email": .string(email)])
        }
        if let phone = account.phoneNumber {
            entries.append(["uid": .string(phone), "provider_id": .string(SignInProvider.phone.rawValue), "phone_number": .string(phone)])
        }
        for identity in account.federatedIdentities ?? [] {
            var entry: [String: JSONValue] = ["uid": .string(identity.rawId), "provider_id": .string(identity.providerId)]
            entry["email"] = identity.email.map(JSONValue.string)
            entry["display_name"] = identity.displayName.map(JSONValue.string)
            entry["photo_url"] = identity.photoUrl.map(JSONValue.string)
            entries.append(.object(entry))
        }
        return entries
    }
}
