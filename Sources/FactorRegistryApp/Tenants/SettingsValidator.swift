import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import LocalizedMessages

/// Checks settings before they are stored, and puts them in canonical form (`STATE_UNSPECIFIED`
/// is `DISABLED`, duplicates removed). Each refusal names the
/// rule; nothing is stored when one fails.
enum SettingsValidator {
    static let maximumTestPhoneNumbers = 10
    static let adjacentIntervals = 0...10

    static func canonical(_ settings: AuthSettings) throws -> AuthSettings {
        var result = settings
        result.mfaConfig = try canonical(settings.mfaConfig)
        try checkTestPhoneNumbers(settings.testPhoneNumbers)
        if let regions = settings.smsRegionConfig {
            result.smsRegionConfig = try canonical(regions)
        }
        guard settings.authorizedDomains.count <= 100,
            settings.authorizedDomains.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 253 && $0.allSatisfy(isDomainCharacter) })
        else { throw invalid(.invalidConfig, detail: "authorizedDomains must be at most 100 host names") }
        result.authorizedDomains = unique(settings.authorizedDomains.map { $0.lowercased() })
        if let defense = settings.smsDefense { try check(defense) }
        if let functions = settings.blockingFunctions {
            result.blockingFunctions = functions.triggers.isEmpty && functions.forwardInboundCredentials == nil ? nil : functions
            try check(functions)
        }
        if let passkeys = settings.passkeyConfig { result.passkeyConfig = try canonical(passkeys) }
        if let notification = settings.notification {
            do {
                result.notification = try NotificationValidation.canonical(notification)
            } catch {
                throw invalid(.invalidConfig, detail: error.detail)
            }
        }
        return result
    }

    /// An rp id is a host name (lower case); each expected origin is `https://host[:port]` (or
    /// `http://` on `localhost`, a secure context too) on the rp id or a subdomain of it, as
    /// WebAuthn requires of a ceremony's origin.
    static func canonical(_ passkeys: PasskeyConfig) throws -> PasskeyConfig {
        let rpId = passkeys.rpId.lowercased()
        guard !rpId.isEmpty, rpId.utf8.count <= 253, rpId.allSatisfy(isDomainCharacter), !rpId.hasPrefix("."), !rpId.hasSuffix("."),
            !rpId.contains(":")
        else { throw invalid(.invalidConfig, detail: "passkeyConfig.rpId must be a host name") }
        guard (1...20).contains(passkeys.expectedOrigins.count) else {
            throw invalid(.invalidConfig, detail: "passkeyConfig.expectedOrigins must list 1 to 20 origins")
        }
        let origins = try passkeys.expectedOrigins.map { origin -> String in
            guard let url = URLComponents(string: origin), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
                url.path.isEmpty, url.query == nil, url.fragment == nil, url.user == nil,
                scheme == "https" || (scheme == "http" && (host == "localhost" || host.hasSuffix(".localhost"))),
                host == rpId || host.hasSuffix("." + rpId)
            else {
                throw invalid(
                    .invalidConfig,
                    detail: "passkeyConfig.expectedOrigins must be https origins (http on localhost) on the rpId or below it"
                )
            }
            return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        }
        return PasskeyConfig(rpId: rpId, expectedOrigins: unique(origins))
    }

    static func canonical(_ mfa: MultiFactorConfig) throws -> MultiFactorConfig {
        let state = mfa.state.canonical
        guard MultiFactorState.stored.contains(state) else {
            throw invalid(.invalidConfig, detail: "mfa state must be DISABLED, ENABLED or MANDATORY")
        }
        // Kept as given (repeats dropped): the list reads back exactly as it was written, and
        // `PROVIDER_UNSPECIFIED` enables nothing (`smsEnabled` asks for PHONE_SMS).
        let providers = unique(mfa.enabledProviders)
        guard providers.allSatisfy({ $0 == "PHONE_SMS" || $0 == "PROVIDER_UNSPECIFIED" }) else {
            throw invalid(.invalidConfig, detail: "enabledProviders may only contain PHONE_SMS")
        }
        guard mfa.providerConfigs.count <= 10 else { throw invalid(.invalidConfig, detail: "at most 10 providerConfigs") }
        let configs = try mfa.providerConfigs.map { config -> MultiFactorProviderConfig in
            let state = config.state.canonical
            guard MultiFactorState.stored.contains(state) else {
                throw invalid(.invalidConfig, detail: "providerConfigs state must be DISABLED, ENABLED or MANDATORY")
            }
            guard let totp = config.totpProviderConfig else {
                throw invalid(.invalidConfig, detail: "each providerConfigs entry needs a totpProviderConfig")
            }
            if let intervals = totp.adjacentIntervals, !adjacentIntervals.contains(intervals) {
                throw invalid(.invalidConfig, detail: "adjacentIntervals must be between 0 and 10")
            }
            return MultiFactorProviderConfig(state: state, totpProviderConfig: totp)
        }
        if let grace = mfa.enrollmentGracePeriodSeconds, !enrollmentGracePeriods.contains(grace) {
            throw invalid(.invalidConfig, detail: "enrollmentGracePeriod must be between 0s and 7776000s (90 days)")
        }
        if let maxAge = mfa.stepUpMaxAgeSeconds, !stepUpMaxAges.contains(maxAge) {
            throw invalid(.invalidConfig, detail: "stepUpMaxAge must be between 60s and 86400s")
        }
        return MultiFactorConfig(
            state: state, enabledProviders: providers, providerConfigs: configs,
            enrollmentGracePeriodSeconds: mfa.enrollmentGracePeriodSeconds, mandatorySince: mfa.mandatorySince,
            stepUpMaxAgeSeconds: mfa.stepUpMaxAgeSeconds
        )
    }

    static let enrollmentGracePeriods: ClosedRange<Int64> = 0...7_776_000
    static let stepUpMaxAges: ClosedRange<Int64> = 60...86_400

    /// `mandatorySince` is factor-registry's to set: kept while the state stays MANDATORY, now
    /// when it becomes MANDATORY, cleared otherwise. Whatever a caller sent is ignored.
    static func stampingMandatorySince(_ settings: AuthSettings, previous: AuthSettings?, now: Date = Date()) -> AuthSettings {
        var result = settings
        if !settings.mfaConfig.isMandatory {
            result.mfaConfig.mandatorySince = nil
        } else if let previous, previous.mfaConfig.isMandatory, let since = previous.mfaConfig.mandatorySince {
            result.mfaConfig.mandatorySince = since
        } else {
            result.mfaConfig.mandatorySince = Int64(now.timeIntervalSince1970 * 1000)
        }
        return result
    }

    /// At most 10 numbers, each E.164 with a 6-digit code. The messages never repeat the number.
    static func checkTestPhoneNumbers(_ numbers: [String: String]) throws {
        guard numbers.count <= maximumTestPhoneNumbers else {
            throw invalid(.maximumTestPhoneNumberExceeded, detail: "at most 10 test phone numbers")
        }
        for (number, code) in numbers {
            guard PhoneNumber.isValid(number) else {
                throw invalid(.invalidTestingPhoneNumber, detail: "test phone numbers must be E.164 (+ and 1 to 15 digits)")
            }
            guard code.utf8.count == 6, code.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw invalid(.invalidTestingPhoneNumber, detail: "a test phone number's code must be exactly 6 digits")
            }
        }
    }

    static func canonical(_ regions: SMSRegionConfig) throws -> SMSRegionConfig? {
        switch (regions.allowByDefault, regions.allowlistOnly) {
        case (.some, .some):
            throw invalid(.invalidConfig, detail: "smsRegionConfig takes allowByDefault or allowlistOnly, not both")
        case (.some(let denylist), nil):
            return SMSRegionConfig(allowByDefault: .init(disallowedRegions: try checkRegions(denylist.disallowedRegions)))
        case (nil, .some(let allowlist)):
            return SMSRegionConfig(allowlistOnly: .init(allowedRegions: try checkRegions(allowlist.allowedRegions)))
        case (nil, nil):
            return nil
        }
    }

    static func checkRegions(_ regions: [String]) throws -> [String] {
        let codes = unique(regions.map { $0.uppercased() })
        guard codes.count <= 300, codes.allSatisfy(CallingCodes.regions.contains) else {
            throw invalid(.invalidConfig, detail: "smsRegionConfig regions must be ISO 3166 alpha-2 codes of countries with phone service")
        }
        return codes
    }

    /// Each trigger names a known event and an absolute `http(s)` URL with a host, without user
    /// information or fragment (the gateway holds production to HTTPS when it stores them, and
    /// again when it calls).
    static func check(_ functions: BlockingFunctionsConfig) throws {
        for (event, trigger) in functions.triggers {
            guard BlockingFunctionsConfig.Event(rawValue: event) != nil else {
                let events = BlockingFunctionsConfig.Event.allCases.map(\.rawValue).joined(separator: ", ")
                throw invalid(.invalidConfig, detail: "blockingFunctions.triggers has no event \(event) (\(events))")
            }
            guard isFunctionURI(trigger.functionUri) else {
                throw invalid(
                    .invalidConfig,
                    detail: "blockingFunctions.triggers.\(event).functionUri must be an http(s) URL with a host, at most 2048 characters"
                )
            }
        }
    }

    static func isFunctionURI(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty,
            components.user == nil, components.password == nil, components.fragment == nil
        else { return false }
        return true
    }

    /// Limits a send can be held to: counts at least 1, caps and prices not negative (a price under
    /// 100 US dollars a segment), an anomaly factor of at least 1.
    static func check(_ defense: SMSDefenseConfig) throws {
        let counts = [defense.countryHourlyLimit, defense.prefixHourlyLimit, defense.anomalyMinimumHourlySends].compactMap { $0 }
        guard counts.allSatisfy({ $0 >= 1 }) else {
            throw invalid(.invalidConfig, detail: "smsDefenseConfig hourly limits and anomalyMinimumHourlySends must be at least 1")
        }
        guard [defense.dailySpendCapUsd, defense.monthlySpendCapUsd].compactMap({ $0 }).allSatisfy({ $0 >= 0 && $0.isFinite }) else {
            throw invalid(.invalidConfig, detail: "smsDefenseConfig spend caps must not be negative")
        }
        if let factor = defense.anomalyFactor, !(factor >= 1 && factor.isFinite) {
            throw invalid(.invalidConfig, detail: "smsDefenseConfig.anomalyFactor must be at least 1")
        }
        let prices = defense.segmentPricesUsd ?? [:]
        guard prices.count <= 300,
            prices.allSatisfy({ CallingCodes.regions.contains($0.key.uppercased()) && $0.value >= 0 && $0.value < 100 })
        else {
            throw invalid(
                .invalidConfig, detail: "smsDefenseConfig.segmentPricesUsd maps ISO 3166 alpha-2 regions to prices from 0 to 100 US dollars"
            )
        }
    }

    static func isDomainCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "." || character == "-" || character == ":")
    }

    static func unique(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.filter { seen.insert($0).inserted }
    }

    static func invalid(_ code: IdentityToolkitError.Code, detail: String? = nil) -> RPCError {
        RPCError(code: .invalidSettings, business: IdentityToolkitError(code, detail: detail))
    }
}
