import AuthVocabulary

/// The sign-in and MFA settings of a project or of a tenant, in Identity Toolkit's field names
/// (a tenant's resource spells them this way; the project config resource nests some under
/// `signIn` and calls `mfaConfig` `mfa`, which the gateway maps). factor-registry stores and
/// validates them; every flow reads them on each request.
public struct AuthSettings: Codable, Sendable, Hashable {
    public var allowPasswordSignup: Bool
    public var enableEmailLinkSignin: Bool
    public var enableAnonymousUser: Bool
    /// Every client operation answers `PROJECT_DISABLED`.
    public var disableAuth: Bool
    public var mfaConfig: MultiFactorConfig
    /// E.164 number → its fixed 6-digit code (at most 10): no SMS is sent to these.
    public var testPhoneNumbers: [String: String]
    public var smsRegionConfig: SMSRegionConfig?
    /// Projects only: the domains sign-in links and redirects may use.
    public var authorizedDomains: [String]
    /// `emailPrivacyConfig.enableImprovedEmailPrivacy` of a project or a tenant (contract decision
    /// 19); `nil` until an operator sets it, which means on in production and off in development.
    public var improvedEmailPrivacy: Bool?
    /// The language of SMS and emails and the operator's own texts; `nil`: built-in texts, English default.
    public var notification: NotificationConfig?
    /// Limits on SMS sends against toll fraud; `nil`: the deployment's defaults.
    public var smsDefense: SMSDefenseConfig?
    /// Projects only: `signIn.phoneNumber.enabled`, the phone as a first factor
    /// (`sendVerificationCode`, `signInWithPhoneNumber`); `nil` until an operator sets it, which
    /// means off in production (each code costs money) and on in development.
    public var phoneSignIn: Bool?
    /// `passwordPolicyConfig`; `nil`: none set (six characters, `WEAK_PASSWORD`).
    public var passwordPolicy: PasswordPolicy?
    /// `blockingFunctions`; `nil`: none (a tenant's: its project's apply).
    public var blockingFunctions: BlockingFunctionsConfig?
    /// `passkeyConfig`; `nil`: passkeys are off (`PASSKEY_NOT_ENABLED`). A tenant's own, never its project's.
    public var passkeyConfig: PasskeyConfig?

    public init(
        allowPasswordSignup: Bool, enableEmailLinkSignin: Bool, enableAnonymousUser: Bool, disableAuth: Bool,
        mfaConfig: MultiFactorConfig, testPhoneNumbers: [String: String] = [:], smsRegionConfig: SMSRegionConfig? = nil,
        authorizedDomains: [String] = [], improvedEmailPrivacy: Bool? = nil, notification: NotificationConfig? = nil,
        smsDefense: SMSDefenseConfig? = nil
    ) {
        self.smsDefense = smsDefense
        self.notification = notification
        self.improvedEmailPrivacy = improvedEmailPrivacy
        self.allowPasswordSignup = allowPasswordSignup
        self.enableEmailLinkSignin = enableEmailLinkSignin
        self.enableAnonymousUser = enableAnonymousUser
        self.disableAuth = disableAuth
        self.mfaConfig = mfaConfig
        self.testPhoneNumbers = testPhoneNumbers
        self.smsRegionConfig = smsRegionConfig
        self.authorizedDomains = authorizedDomains
    }

    /// A new project (decision 14): password and anonymous sign-in on, SMS and TOTP second factors
    /// enabled with `adjacentIntervals` 5.
    public static let projectDefaults = AuthSettings(
        allowPasswordSignup: true, enableEmailLinkSignin: false, enableAnonymousUser: true, disableAuth: false,
        mfaConfig: MultiFactorConfig(
            state: .enabled, enabledProviders: ["PHONE_SMS"],
            providerConfigs: [MultiFactorProviderConfig(state: .enabled, totpProviderConfig: TOTPProviderConfig(adjacentIntervals: 5))]
        ),
        authorizedDomains: ["localhost"]
    )

    /// A project of a production deployment until an operator sets its config: as
    /// ``projectDefaults`` but without anonymous sign-up, which mints accounts (and sessions) for
    /// anyone with the public API key (issue 39, L-6).
    public static let productionProjectDefaults: AuthSettings = {
        var settings = projectDefaults
        settings.enableAnonymousUser = false
        return settings
    }()

    /// A new tenant, as Identity Platform creates one (contract §2.16): everything off until set.
    public static let tenantDefaults = AuthSettings(
        allowPasswordSignup: false, enableEmailLinkSignin: false, enableAnonymousUser: false, disableAuth: false,
        mfaConfig: MultiFactorConfig(state: .disabled, enabledProviders: [], providerConfigs: [])
    )
}

/// `mfa` / `mfaConfig` (contract §2.15, §3.5).
public struct MultiFactorConfig: Codable, Sendable, Hashable {
    /// `DISABLED`, `ENABLED` or `MANDATORY` (`STATE_UNSPECIFIED` is stored as `DISABLED`).
    public var state: MultiFactorState
    /// `PHONE_SMS` enables SMS second factors; TOTP is configured through `providerConfigs` only.
    public var enabledProviders: [String]
    public var providerConfigs: [MultiFactorProviderConfig]
    /// MANDATORY (docs/mfa-policy.md): how long a user without a factor may still sign in to an
    /// enrollment-only session, counted from the later of the account's creation and
    /// `mandatorySince`, in seconds. `nil`: ``defaultEnrollmentGracePeriod``. Wire:
    /// `enrollmentGracePeriod: "86400s"`.
    public var enrollmentGracePeriodSeconds: Int64?
    /// When `state` last became MANDATORY (milliseconds since the epoch): set by factor-registry
    /// when it stores the settings, never by a caller. Wire: `mandatorySince` (RFC 3339, output only).
    public var mandatorySince: Int64?
    /// Step-up: withdrawing or enrolling a factor, changing the email or password and deleting the
    /// account need a second factor passed within this many seconds (when the account has one).
    /// `nil`: no step-up. Wire: `stepUpMaxAge: "600s"`.
    public var stepUpMaxAgeSeconds: Int64?

    public static let defaultEnrollmentGracePeriod: Int64 = 86_400

    public init(
        state: MultiFactorState, enabledProviders: [String], providerConfigs: [MultiFactorProviderConfig],
        enrollmentGracePeriodSeconds: Int64? = nil, mandatorySince: Int64? = nil, stepUpMaxAgeSeconds: Int64? = nil
    ) {
        self.enrollmentGracePeriodSeconds = enrollmentGracePeriodSeconds
        self.mandatorySince = mandatorySince
        self.stepUpMaxAgeSeconds = stepUpMaxAgeSeconds
        self.state = state
        self.enabledProviders = enabledProviders
        self.providerConfigs = providerConfigs
    }

    /// Whether second factors are on at all (ENABLED or MANDATORY).
    public var isOn: Bool { state.isOn }

    /// MANDATORY is enforced (docs/mfa-policy.md).
    public var isMandatory: Bool { state == .mandatory }

    /// The grace period in force, in seconds.
    public var enrollmentGracePeriod: Int64 { enrollmentGracePeriodSeconds ?? Self.defaultEnrollmentGracePeriod }

    /// SMS second factors may be used (§3.5).
    public var smsEnabled: Bool { state.isOn && enabledProviders.contains("PHONE_SMS") }

    /// The enabled TOTP provider's `adjacentIntervals` (default 5), or `nil` when TOTP is off. The
    /// top-level `state` does not matter: production enables TOTP through `providerConfigs` alone.
    public var totpAdjacentIntervals: Int? {
        guard let enabled = providerConfigs.first(where: { $0.state.isOn && $0.totpProviderConfig != nil })
        else { return nil }
        return enabled.totpProviderConfig?.adjacentIntervals ?? 5
    }
}

public struct MultiFactorProviderConfig: Codable, Sendable, Hashable {
    public var state: MultiFactorState
    public var totpProviderConfig: TOTPProviderConfig?

    public init(state: MultiFactorState, totpProviderConfig: TOTPProviderConfig?) {
        self.state = state
        self.totpProviderConfig = totpProviderConfig
    }
}

public struct TOTPProviderConfig: Codable, Sendable, Hashable {
    /// 0...10; unset means 5.
    public var adjacentIntervals: Int?

    public init(adjacentIntervals: Int?) { self.adjacentIntervals = adjacentIntervals }
}

/// Where SMS may be sent, by region (ISO 3166 alpha-2): all but a denylist, or an allowlist only.
public struct SMSRegionConfig: Codable, Sendable, Hashable {
    public var allowByDefault: AllowByDefault?
    public var allowlistOnly: AllowlistOnly?

    public init(allowByDefault: AllowByDefault? = nil, allowlistOnly: AllowlistOnly? = nil) {
        self.allowByDefault = allowByDefault
        self.allowlistOnly = allowlistOnly
    }

    public struct AllowByDefault: Codable, Sendable, Hashable {
        public var disallowedRegions: [String]
        public init(disallowedRegions: [String]) { self.disallowedRegions = disallowedRegions }
    }

    public struct AllowlistOnly: Codable, Sendable, Hashable {
        public var allowedRegions: [String]
        public init(allowedRegions: [String]) { self.allowedRegions = allowedRegions }
    }

    /// Whether an SMS may go to a number of `region` (`nil`: a region we cannot tell).
    public func allows(region: String?) -> Bool {
        if let allowlistOnly {
            guard let region else { return false }
            return allowlistOnly.allowedRegions.contains(region)
        }
        if let allowByDefault, let region { return !allowByDefault.disallowedRegions.contains(region) }
        return true
    }
}
