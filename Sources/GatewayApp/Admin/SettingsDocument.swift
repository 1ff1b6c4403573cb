import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC

/// `AuthSettings` in the two public shapes: a tenant resource (`mfaConfig`, `testPhoneNumbers`,
/// the booleans at the top) and the project config resource (`mfa`, `signIn.email.enabled`,
/// `signIn.anonymous.enabled`, `signIn.phoneNumber.testPhoneNumbers`).
enum SettingsDocument {
    // MARK: tenants

    static func tenant(_ tenant: Tenant) -> JSONValue {
        let settings = tenant.settings
        var members: [String: JSONValue] = [
            "name": .string("projects/\(tenant.projectId)/tenants/\(tenant.tenantId)"), "tenantId": .string(tenant.tenantId),
            "allowPasswordSignup": .bool(settings.allowPasswordSignup),
            "enableEmailLinkSignin": .bool(settings.enableEmailLinkSignin),
            "enableAnonymousUser": .bool(settings.enableAnonymousUser), "disableAuth": .bool(settings.disableAuth),
            "mfaConfig": mfa(settings.mfaConfig),
        ]
        if let name = tenant.displayName { members["displayName"] = .string(name) }
        if !settings.testPhoneNumbers.isEmpty { members["testPhoneNumbers"] = numbers(settings.testPhoneNumbers) }
        if let regions = settings.smsRegionConfig { members["smsRegionConfig"] = smsRegions(regions) }
        // Only once set: until then the deployment's default applies (decision 19).
        if let privacy = settings.improvedEmailPrivacy {
            members["emailPrivacyConfig"] = ["enableImprovedEmailPrivacy": .bool(privacy)]
        }
        members["notification"] = NotificationDocument.document(settings.notification)
        members["smsDefenseConfig"] = SMSDefenseDocument.document(settings.smsDefense)
        if let policy = settings.passwordPolicy { members["passwordPolicyConfig"] = PasswordPolicyDocument.document(policy) }
        // This server's addition: a tenant's own functions (else its project's apply).
        if let functions = settings.blockingFunctions { members["blockingFunctions"] = BlockingFunctionsDocument.document(functions) }
        return .object(members)
    }

    /// `previous`: the tenant's settings before a patch (the policy's `lastUpdateTime` moves only when it changes).
    static func tenantSettings(_ document: JSONValue, previous: AuthSettings? = nil, mode: ModeDefaults) throws -> AuthSettings {
        let defaults = AuthSettings.tenantDefaults
        var settings = AuthSettings(
            allowPasswordSignup: document["allowPasswordSignup"]?.boolValue ?? defaults.allowPasswordSignup,
            enableEmailLinkSignin: document["enableEmailLinkSignin"]?.boolValue ?? defaults.enableEmailLinkSignin,
            enableAnonymousUser: document["enableAnonymousUser"]?.boolValue ?? defaults.enableAnonymousUser,
            disableAuth: document["disableAuth"]?.boolValue ?? defaults.disableAuth,
            mfaConfig: try mfa(document["mfaConfig"]) ?? defaults.mfaConfig,
            testPhoneNumbers: try numbers(document["testPhoneNumbers"]),
            smsRegionConfig: try smsRegions(document["smsRegionConfig"])
        )
        settings.improvedEmailPrivacy = document["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"]?.boolValue
        settings.notification = try NotificationDocument.config(document["notification"])
        settings.smsDefense = try SMSDefenseDocument.config(document["smsDefenseConfig"])
        settings.passwordPolicy = try PasswordPolicyDocument.policy(document["passwordPolicyConfig"], previous: previous?.passwordPolicy)
        settings.blockingFunctions = try BlockingFunctionsDocument.config(
            document["blockingFunctions"], previous: previous?.blockingFunctions, requireHTTPS: mode.blockingFunctionsNeedHTTPS
        )
        // A resource of its own (`…/passkeyConfig`): a tenant's patch leaves it as it was.
        settings.passkeyConfig = previous?.passkeyConfig
        return settings
    }

    // MARK: project config

    /// `defaults`: what `emailPrivacyConfig` and `signIn.phoneNumber.enabled` say while no operator
    /// has set them (decision 19: privacy on in production; phone sign-in off in production).
    static func project(_ config: ProjectConfig, defaults: ModeDefaults) -> JSONValue {
        let settings = config.settings
        var members: [String: JSONValue] = [
            "name": .string("projects/\(config.projectId)/config"),
            "signIn": [
                "email": ["enabled": .bool(settings.allowPasswordSignup), "passwordRequired": .bool(!settings.enableEmailLinkSignin)],
                "anonymous": ["enabled": .bool(settings.enableAnonymousUser)],
                "phoneNumber": [
                    "enabled": .bool(settings.phoneSignIn ?? defaults.phoneSignIn), "testPhoneNumbers": numbers(settings.testPhoneNumbers),
                ],
                "allowDuplicateEmails": false,
            ],
            "mfa": mfa(settings.mfaConfig),
            "authorizedDomains": .array(settings.authorizedDomains.map(JSONValue.string)),
            "subtype": "IDENTITY_PLATFORM",
            "multiTenant": ["allowTenants": true],
            "emailPrivacyConfig": [
                "enableImprovedEmailPrivacy": .bool(settings.improvedEmailPrivacy ?? defaults.improvedEmailPrivacy)
            ],
            "blockingFunctions": BlockingFunctionsDocument.document(settings.blockingFunctions),
        ]
        if let apiKey = config.apiKey { members["client"] = ["apiKey": .string(apiKey)] }
        if let regions = settings.smsRegionConfig { members["smsRegionConfig"] = smsRegions(regions) }
        members["notification"] = NotificationDocument.document(settings.notification)
        members["smsDefenseConfig"] = SMSDefenseDocument.document(settings.smsDefense)
        if let policy = settings.passwordPolicy { members["passwordPolicyConfig"] = PasswordPolicyDocument.document(policy) }
        return .object(members)
    }

    static func projectSettings(_ document: JSONValue, base: AuthSettings, defaults: ModeDefaults) throws -> AuthSettings {
        var settings = base
        let signIn = document["signIn"]
        settings.allowPasswordSignup = signIn?["email"]?["enabled"]?.boolValue ?? false
        // Email-link (passwordless) sign-in: on only where an operator turned the password requirement off.
        settings.enableEmailLinkSignin = !(signIn?["email"]?["passwordRequired"]?.boolValue ?? true)
        settings.enableAnonymousUser = signIn?["anonymous"]?["enabled"]?.boolValue ?? false
        settings.testPhoneNumbers = try numbers(signIn?["phoneNumber"]?["testPhoneNumbers"])
        settings.phoneSignIn = signIn?["phoneNumber"]?["enabled"]?.boolValue
        settings.mfaConfig = try mfa(document["mfa"]) ?? MultiFactorConfig(state: .disabled, enabledProviders: [], providerConfigs: [])
        settings.smsRegionConfig = try smsRegions(document["smsRegionConfig"])
        settings.improvedEmailPrivacy = document["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"]?.boolValue
        settings.notification = try NotificationDocument.config(document["notification"])
        settings.smsDefense = try SMSDefenseDocument.config(document["smsDefenseConfig"])
        settings.passwordPolicy = try PasswordPolicyDocument.policy(document["passwordPolicyConfig"], previous: base.passwordPolicy)
        settings.blockingFunctions = try BlockingFunctionsDocument.config(
            document["blockingFunctions"], previous: base.blockingFunctions, requireHTTPS: defaults.blockingFunctionsNeedHTTPS
        )
        if case .array(let domains)? = document["authorizedDomains"] {
            settings.authorizedDomains = domains.compactMap(\.stringValue)
        } else {
            settings.authorizedDomains = []
        }
        return settings
    }

    // MARK: parts

    static func mfa(_ config: MultiFactorConfig) -> JSONValue {
        var document: [String: JSONValue] = [
            "state": .string(config.state.rawValue), "enabledProviders": .array(config.enabledProviders.map(JSONValue.string)),
            "providerConfigs": .array(
                config.providerConfigs.map { provider in
                    var entry: [String: JSONValue] = ["state": .string(provider.state.rawValue)]
                    if let totp = provider.totpProviderConfig {
                        entry["totpProviderConfig"] = .object(
                            totp.adjacentIntervals.map { ["adjacentIntervals": .int(Int64($0))] } ?? [:]
                        )
                    }
                    return .object(entry)
                }
            ),
        ]
        // Our policy members (docs/mfa-policy.md), beside Identity Platform's.
        if config.isMandatory {
            document["enrollmentGracePeriod"] = .string("\(config.enrollmentGracePeriod)s")
            if let since = config.mandatorySince {
                document["mandatorySince"] = .string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(since) / 1000)))
            }
        } else if let grace = config.enrollmentGracePeriodSeconds {
            document["enrollmentGracePeriod"] = .string("\(grace)s")
        }
        if let maxAge = config.stepUpMaxAgeSeconds { document["stepUpMaxAge"] = .string("\(maxAge)s") }
        return .object(document)
    }

    static func mfa(_ value: JSONValue?) throws -> MultiFactorConfig? {
        guard let value, value != .null else { return nil }
        let providers: [MultiFactorProviderConfig] = try (arrayValue(value["providerConfigs"]) ?? []).map { entry in
            var totp: TOTPProviderConfig?
            if let config = entry["totpProviderConfig"], config != .null {
                totp = TOTPProviderConfig(adjacentIntervals: try intervals(config["adjacentIntervals"]))
            }
            return MultiFactorProviderConfig(
                state: MultiFactorState(rawValue: entry["state"]?.stringValue ?? "DISABLED"), totpProviderConfig: totp)
        }
        return MultiFactorConfig(
            state: MultiFactorState(rawValue: value["state"]?.stringValue ?? "DISABLED"),
            enabledProviders: (arrayValue(value["enabledProviders"]) ?? []).compactMap(\.stringValue),
            providerConfigs: providers,
            enrollmentGracePeriodSeconds: try duration(value["enrollmentGracePeriod"], named: "enrollmentGracePeriod"),
            stepUpMaxAgeSeconds: try duration(value["stepUpMaxAge"], named: "stepUpMaxAge")
        )
    }

    /// A protobuf `Duration` in its JSON form, whole seconds: `"600s"` (a bare number is taken as seconds).
    static func duration(_ value: JSONValue?, named name: String) throws -> Int64? {
        switch value {
        case nil, .null?: return nil
        case .int(let seconds)?: return seconds
        case .string(let text)?:
            guard text.hasSuffix("s"), let seconds = Int64(text.dropLast()), seconds >= 0 else {
                throw IdentityToolkitError.invalidPayload("\(name) must be a duration in whole seconds, such as \"600s\"")
            }
            return seconds
        default: throw IdentityToolkitError.invalidPayload("\(name) must be a duration in whole seconds, such as \"600s\"")
        }
    }

    static func intervals(_ value: JSONValue?) throws -> Int? {
        switch value {
        case nil, .null?: return nil
        case .int(let number)?: return Int(clamping: number)
        case .string(let text)?:
            guard let number = Int(text) else { throw IdentityToolkitError.invalidPayload("adjacentIntervals must be an integer") }
            return number
        default: throw IdentityToolkitError.invalidPayload("adjacentIntervals must be an integer")
        }
    }

    static func numbers(_ map: [String: String]) -> JSONValue { .object(map.mapValues(JSONValue.string)) }

    static func numbers(_ value: JSONValue?) throws -> [String: String] {
        guard let value, value != .null else { return [:] }
        guard case .object(let members) = value else { throw IdentityToolkitError.invalidPayload("testPhoneNumbers must be an object") }
        return try members.mapValues { code in
            guard let text = code.stringValue else { throw IdentityToolkitError.invalidPayload("testPhoneNumbers codes must be strings") }
            return text
        }
    }

    static func smsRegions(_ config: SMSRegionConfig) -> JSONValue {
        if let allowlist = config.allowlistOnly {
            return ["allowlistOnly": ["allowedRegions": .array(allowlist.allowedRegions.map(JSONValue.string))]]
        }
        if let denylist = config.allowByDefault {
            return ["allowByDefault": ["disallowedRegions": .array(denylist.disallowedRegions.map(JSONValue.string))]]
        }
        return [:]
    }

    static func smsRegions(_ value: JSONValue?) throws -> SMSRegionConfig? {
        guard let value, value != .null else { return nil }
        let denylist = value["allowByDefault"].flatMap { $0 == .null ? nil : $0 }
        let allowlist = value["allowlistOnly"].flatMap { $0 == .null ? nil : $0 }
        if denylist == nil, allowlist == nil { return nil }
        return SMSRegionConfig(
            allowByDefault: denylist.map {
                .init(disallowedRegions: (arrayValue($0["disallowedRegions"]) ?? []).compactMap(\.stringValue))
            },
            allowlistOnly: allowlist.map { .init(allowedRegions: (arrayValue($0["allowedRegions"]) ?? []).compactMap(\.stringValue)) }
        )
    }

    static func arrayValue(_ value: JSONValue?) -> [JSONValue]? {
        if case .array(let items)? = value { return items }
        return nil
    }
}

extension JSONValue {
    var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }
}
