import AuthVocabulary
import Contracts
import Foundation

/// The checks an operator's `notification` settings pass before they are stored: language tags that
/// parse, templates that use only their message's placeholders and carry its code or link, SMS texts
/// of at most ``maximumSMSSegments`` segments, email subjects on one line. Locale keys come back in
/// canonical case (`pt_br` → `pt-BR`).
public enum NotificationValidation {
    public struct Invalid: Error, Sendable {
        /// Names the member and the rule, e.g. `notification.sendSms.smsTemplate.content has an unknown placeholder {{cod}} …`.
        public let detail: String
    }

    public static let maximumSMSSegments = 2
    public static let maximumLocales = 50
    public static let maximumSubjectCharacters = 200
    public static let maximumBodyCharacters = 20_000
    /// The app name an SMS template is measured with: longer names are rare.
    static let sampleAppName = String(repeating: "A", count: 20)

    public static func canonical(_ config: NotificationConfig) throws(Invalid) -> NotificationConfig {
        var result = config
        if let tag = config.defaultLocale {
            guard let locale = MessageLocale(tag) else {
                throw Invalid(detail: "notification.defaultLocale must be a BCP 47 language tag such as en, es-419 or zh-Hant")
            }
            result.defaultLocale = locale.tag
        }
        let defaultTag = result.defaultLocale ?? "en"
        if let sms = config.sendSms {
            if let template = sms.smsTemplate {
                try checkSMS(template.content, tag: defaultTag, at: "notification.sendSms.smsTemplate.content")
            }
            result.sendSms?.localizedTemplates = try localized(sms.localizedTemplates, at: "notification.sendSms.localizedTemplates") {
                template, tag, path throws(Invalid) in
                try checkSMS(template.content, tag: tag, at: path + ".content")
            }
        }
        if let email = config.sendEmail {
            try checkEmails(email.templates, at: "notification.sendEmail")
            result.sendEmail?.localizedTemplates = try localized(email.localizedTemplates, at: "notification.sendEmail.localizedTemplates")
            {
                set, _, path throws(Invalid) in
                try checkEmails(set, at: path)
            }
        }
        return result
    }

    static func localized<Value>(
        _ entries: [String: Value]?, at path: String, check: (Value, String, String) throws(Invalid) -> Void
    ) throws(Invalid) -> [String: Value]? {
        guard let entries else { return nil }
        guard entries.count <= maximumLocales else { throw Invalid(detail: "\(path) may hold at most \(maximumLocales) languages") }
        var result: [String: Value] = [:]
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            guard let tag = MessageLocale(key)?.tag else {
                throw Invalid(detail: "\(path) keys must be BCP 47 language tags such as es-419 (\"\(key.prefix(40))\" is not)")
            }
            guard result[tag] == nil else { throw Invalid(detail: "\(path) names \(tag) twice") }
            try check(value, tag, "\(path).\(tag)")
            result[tag] = value
        }
        return result
    }

    static func checkSMS(_ content: String, tag: String, at path: String) throws(Invalid) {
        let template: MessageTemplate
        do {
            template = try MessageTemplate(content, format: .text, placeholders: MessagePlaceholders.sms)
        } catch {
            throw Invalid(detail: "\(path) \(error.reason)")
        }
        guard mentions("code", in: content) else { throw Invalid(detail: "\(path) must contain {{code}}") }
        let words = MessageCatalog.nearestBuiltIn(from: tag, in: MessageLocale(tag)?.fallbacks ?? [tag])
        let sample = template.render([
            "code": "123456", "appName": sampleAppName, "expiry": words.minutes.other.replacing("{{count}}", with: "10"),
            "minutes": "10",
        ])
        let length = SMSLength(of: sample)
        guard length.segments <= maximumSMSSegments else {
            throw Invalid(
                detail: "\(path) is \(length.segments) SMS segments long (\(length.encoding.rawValue), \(length.units) characters "
                    + "with a 6-digit code and a 20-character app name); at most \(maximumSMSSegments) are allowed"
            )
        }
    }

    static func checkEmails(_ set: EmailTemplateSet, at path: String) throws(Invalid) {
        for (name, kind) in zip(EmailTemplateSet.memberNames, EmailTemplateSet.kinds) {
            guard let template = set.template(for: kind) else { continue }
            let placeholders = MessagePlaceholders.email(kind)
            let at = "\(path).\(name)"
            if let format = template.bodyFormat, !["BODY_FORMAT_UNSPECIFIED", "PLAIN_TEXT", "HTML"].contains(format) {
                throw Invalid(detail: "\(at).bodyFormat must be PLAIN_TEXT or HTML")
            }
            if let subject = template.subject {
                guard subject.count <= maximumSubjectCharacters,
                    !subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                else { throw Invalid(detail: "\(at).subject must be one line of at most \(maximumSubjectCharacters) characters") }
                do { _ = try MessageTemplate(subject, format: .text, placeholders: placeholders) } catch {
                    throw Invalid(detail: "\(at).subject \(error.reason)")
                }
            }
            if let body = template.body {
                guard body.count <= maximumBodyCharacters else {
                    throw Invalid(detail: "\(at).body must be at most \(maximumBodyCharacters) characters")
                }
                do { _ = try MessageTemplate(body, format: template.isHTML ? .html : .text, placeholders: placeholders) } catch {
                    throw Invalid(detail: "\(at).body \(error.reason)")
                }
                guard mentions("link", in: body) else { throw Invalid(detail: "\(at).body must contain {{link}}") }
            }
        }
    }

    /// Whether a template shows the value `name` (`{{name}}`, `{{{name}}}` or `{{&name}}`).
    static func mentions(_ name: String, in source: String) -> Bool {
        (MessageTemplate.tags(in: source) ?? []).contains { tag in
            let trimmed = tag.trimmingCharacters(in: .whitespaces)
            return trimmed == name || (trimmed.first == "&" && trimmed.dropFirst().trimmingCharacters(in: .whitespaces) == name)
        }
    }
}

extension EmailTemplateSet {
    /// The kinds in the order of ``memberNames``.
    static let kinds: [OOBRequestType] = [
        .verifyEmail, .passwordReset, .recoverEmail, .revertSecondFactorAddition, .verifyAndChangeEmail, .emailSignIn,
        .revertPhoneNumberAddition, .recoveryCodeUsed,
    ]
}
