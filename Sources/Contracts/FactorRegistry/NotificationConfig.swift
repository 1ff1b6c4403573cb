import AuthVocabulary

/// `notification` of a project's or a tenant's settings: the language messages go out in and the
/// operator's own texts. Identity Platform's shape (`defaultLocale`, `sendSms.smsTemplate`,
/// `sendEmail.<kind>Template`), plus what it lacks: texts per locale (`localizedTemplates`), and
/// templates for the two emails it does not let an operator edit (email change verification,
/// email-link sign-in). A tenant's config stands alone: unset, its messages use the built-in texts.
/// Templates are Mustache (`{{code}}`, `{{link}}`, …); docs/operations.md lists the placeholders.
public struct NotificationConfig: Codable, Sendable, Hashable {
    /// BCP 47; the language of a request that names none (or one without texts). Unset: English.
    public var defaultLocale: String?
    public var sendSms: SMSNotifications?
    public var sendEmail: EmailNotifications?

    public init(defaultLocale: String? = nil, sendSms: SMSNotifications? = nil, sendEmail: EmailNotifications? = nil) {
        self.defaultLocale = defaultLocale
        self.sendSms = sendSms
        self.sendEmail = sendEmail
    }
}

public struct SMSNotifications: Codable, Sendable, Hashable {
    /// Whether the client's language (`X-Firebase-Locale`) chooses the text; unset means yes.
    public var useDeviceLocale: Bool?
    /// The text in the default locale.
    public var smsTemplate: SMSTemplate?
    /// BCP 47 tag → the text in that language.
    public var localizedTemplates: [String: SMSTemplate]?

    public init(useDeviceLocale: Bool? = nil, smsTemplate: SMSTemplate? = nil, localizedTemplates: [String: SMSTemplate]? = nil) {
        self.useDeviceLocale = useDeviceLocale
        self.smsTemplate = smsTemplate
        self.localizedTemplates = localizedTemplates
    }
}

public struct SMSTemplate: Codable, Sendable, Hashable {
    public var content: String

    public init(content: String) { self.content = content }
}

/// `sendEmail`: the templates in the default locale at the top, others under `localizedTemplates`.
public struct EmailNotifications: Codable, Sendable, Hashable {
    public var templates: EmailTemplateSet
    /// BCP 47 tag → the templates in that language.
    public var localizedTemplates: [String: EmailTemplateSet]?

    public init(templates: EmailTemplateSet = .init(), localizedTemplates: [String: EmailTemplateSet]? = nil) {
        self.templates = templates
        self.localizedTemplates = localizedTemplates
    }

    enum CodingKeys: String, CodingKey { case localizedTemplates }

    public init(from decoder: any Decoder) throws {
        templates = try EmailTemplateSet(from: decoder)
        localizedTemplates = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(
            [String: EmailTemplateSet].self, forKey: .localizedTemplates
        )
    }

    public func encode(to encoder: any Encoder) throws {
        try templates.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(localizedTemplates, forKey: .localizedTemplates)
    }
}

/// One template per email the product sends, under Identity Platform's member names where it has one.
public struct EmailTemplateSet: Codable, Sendable, Hashable {
    /// `VERIFY_EMAIL`.
    public var verifyEmailTemplate: EmailTemplate?
    /// `PASSWORD_RESET`.
    public var resetPasswordTemplate: EmailTemplate?
    /// `RECOVER_EMAIL`: to the old address after an email change.
    public var changeEmailTemplate: EmailTemplate?
    /// `REVERT_SECOND_FACTOR_ADDITION`: the notice of a new second factor.
    public var revertSecondFactorAdditionTemplate: EmailTemplate?
    /// `VERIFY_AND_CHANGE_EMAIL` (not in Identity Platform).
    public var verifyAndChangeEmailTemplate: EmailTemplate?
    /// `EMAIL_SIGNIN` (not in Identity Platform).
    public var emailSignInTemplate: EmailTemplate?
    /// `REVERT_PHONE_NUMBER_ADDITION`: the notice of a phone number linked to sign in with (not in Identity Platform).
    public var revertPhoneNumberAdditionTemplate: EmailTemplate?
    /// `RECOVERY_CODE_USED`: the notice of a recovery code used to sign in (not in Identity Platform).
    public var recoveryCodeUsedTemplate: EmailTemplate?

    public init(
        verifyEmailTemplate: EmailTemplate? = nil, resetPasswordTemplate: EmailTemplate? = nil, changeEmailTemplate: EmailTemplate? = nil,
        revertSecondFactorAdditionTemplate: EmailTemplate? = nil, verifyAndChangeEmailTemplate: EmailTemplate? = nil,
        emailSignInTemplate: EmailTemplate? = nil, revertPhoneNumberAdditionTemplate: EmailTemplate? = nil,
        recoveryCodeUsedTemplate: EmailTemplate? = nil
    ) {
        self.recoveryCodeUsedTemplate = recoveryCodeUsedTemplate
        self.verifyEmailTemplate = verifyEmailTemplate
        self.resetPasswordTemplate = resetPasswordTemplate
        self.changeEmailTemplate = changeEmailTemplate
        self.revertSecondFactorAdditionTemplate = revertSecondFactorAdditionTemplate
        self.verifyAndChangeEmailTemplate = verifyAndChangeEmailTemplate
        self.emailSignInTemplate = emailSignInTemplate
        self.revertPhoneNumberAdditionTemplate = revertPhoneNumberAdditionTemplate
    }

    /// The member names, as the admin API spells them.
    public static let memberNames = [
        "verifyEmailTemplate", "resetPasswordTemplate", "changeEmailTemplate", "revertSecondFactorAdditionTemplate",
        "verifyAndChangeEmailTemplate", "emailSignInTemplate", "revertPhoneNumberAdditionTemplate", "recoveryCodeUsedTemplate",
    ]

    /// The template for an out-of-band request type (`PASSWORD_RESET`, …).
    public func template(for requestType: OOBRequestType) -> EmailTemplate? {
        switch requestType {
        case .verifyEmail: verifyEmailTemplate
        case .passwordReset: resetPasswordTemplate
        case .recoverEmail: changeEmailTemplate
        case .revertSecondFactorAddition: revertSecondFactorAdditionTemplate
        case .verifyAndChangeEmail: verifyAndChangeEmailTemplate
        case .emailSignIn: emailSignInTemplate
        case .revertPhoneNumberAddition: revertPhoneNumberAdditionTemplate
        case .recoveryCodeUsed: recoveryCodeUsedTemplate
        }
    }

    public var all: [EmailTemplate] {
        [
            verifyEmailTemplate, resetPasswordTemplate, changeEmailTemplate, revertSecondFactorAdditionTemplate,
            verifyAndChangeEmailTemplate, emailSignInTemplate, revertPhoneNumberAdditionTemplate, recoveryCodeUsedTemplate,
        ].compactMap { $0 }
    }
}

/// A subject and a body; either may be left out, and the built-in text of the same language stands in.
public struct EmailTemplate: Codable, Sendable, Hashable {
    public var subject: String?
    public var body: String?
    /// `PLAIN_TEXT` (unset) or `HTML`: an HTML body's values are HTML-escaped.
    public var bodyFormat: String?

    public init(subject: String? = nil, body: String? = nil, bodyFormat: String? = nil) {
        self.subject = subject
        self.body = body
        self.bodyFormat = bodyFormat
    }

    public var isHTML: Bool { bodyFormat == "HTML" }
}
